import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.js';
import { newId } from '../../src/ids.js';
import { addIssueDays, IssueDayTally } from '../../src/issues/issue-days.repository.js';

/**
 * An issue with report_issues rows at the given times and their days in issue_days (what the
 * grouper would have written).
 */
export async function seedIssue(
  db: Kysely<DB>,
  projectId: string,
  options: { at: Date[]; status?: string; title?: string; regressedAt?: Date },
): Promise<string> {
  const id = newId();
  const times = [...options.at].sort((a, b) => a.getTime() - b.getTime());
  const first = times[0] ?? new Date();
  const last = times.at(-1) ?? first;
  await db
    .insertInto('issues')
    .values({
      id,
      project_id: projectId,
      status: options.status ?? 'open',
      regressed_at: options.regressedAt?.toISOString() ?? null,
      resolved_at: null,
      title: options.title ?? `Issue ${id.slice(-6)}`,
      tool_name: 'search',
      kind: 'text',
      signature: id,
      outcome: 'failure',
      report_count: times.length,
      count_success: 0,
      count_failure: times.length,
      count_confusing: 0,
      count_gave_up: 0,
      count_request: 0,
      sample_details: 'it failed',
      first_seen: first.toISOString(),
      last_seen: last.toISOString(),
      note: null,
      created_at: first.toISOString(),
      updated_at: last.toISOString(),
    })
    .execute();
  const rows = times.map((at) => ({
    report_id: newId(at.getTime()),
    project_id: projectId,
    created_at: at.toISOString(),
    issue_id: id,
    issue_reason: 'test',
  }));
  for (let i = 0; i < rows.length; i += 100)
    await db
      .insertInto('report_issues')
      .values(rows.slice(i, i + 100))
      .execute();
  const days = new IssueDayTally();
  for (const at of times) days.add(id, projectId, at);
  await addIssueDays(db, days);
  return id;
}

export const minutesAgo = (now: Date, minutes: number, count: number): Date[] =>
  Array.from({ length: count }, (_, i) => new Date(now.getTime() - (minutes + i) * 60_000));
