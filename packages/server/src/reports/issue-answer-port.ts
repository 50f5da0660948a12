import type { ReportMetadata, SubmitReportIssue } from '@debrief/protocol';

/** What the submit answer's lookup reads of a stored report. */
export interface AnsweredReport {
  id: string;
  projectId: string;
  outcome: string;
  toolName: string | null;
  source: string | null;
  details: string;
  metadata: ReportMetadata | null;
}

/**
 * The seam between submitting a report and what the developer already knows about its issue
 * (the submit answer's `issue` field). Submitting owns this contract and imports nothing of
 * issues/: issues/agent-loop/ implements it, and build-context.ts passes it in.
 *
 * `answer` is called once a report is committed. It returns null, synchronously, when the
 * report's project has nothing an agent could be told (no issue with an agent note, none
 * resolved or ignored), so that such projects pay no promise and no wait. Otherwise a promise
 * that resolves within a bounded wait: the issue the report was actually grouped into, if that
 * issue is one an agent may be told of, else null. It never rejects.
 */
export interface IssueAnswerPort {
  answer(report: AnsweredReport): Promise<SubmitReportIssue | null> | null;
}
