/**
 * What Debrief says back about the issue a report joined, when the developer left something
 * for agents there: the issue's status, and their note (a workaround, "fixed in 2.3"). Absent
 * for most reports; the plain `{ ok, id }` answer stays valid.
 */
export interface ReportIssue {
  id: string;
  status: string;
  agent_note?: string;
}

/**
 * Reads the submit answer's `issue` by hand rather than with a strict schema: a newer server may
 * add statuses or fields, and an odd `issue` must never turn a stored report into a failure.
 */
export function reportIssueOf(body: unknown): ReportIssue | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const issue = (body as { issue?: unknown }).issue;
  if (typeof issue !== 'object' || issue === null) return undefined;
  const { id, status, agent_note: note } = issue as Record<string, unknown>;
  if (typeof id !== 'string' || typeof status !== 'string') return undefined;
  return typeof note === 'string' && note !== ''
    ? { id, status, agent_note: note }
    : { id, status };
}
