import type { IssueStatus, IssueSummary, Outcome } from '@debrief/protocol';
import { toWireTimestamp } from '../db/wire-timestamp.js';
import type { IssueRow } from './issue.repository.js';

/**
 * An issue row as the list (and the `issue` events) show it. `rangeCount`: its reports in the
 * list's date range, only when the list was asked for one.
 */
export function toIssueSummary(row: IssueRow, rangeCount: number | null = null): IssueSummary {
  return {
    id: row.id,
    title: row.title,
    status: row.status as IssueStatus,
    regressed_at: toWireTimestamp(row.regressed_at),
    outcome: row.outcome as Outcome,
    tool_name: row.tool_name,
    report_count: Number(row.report_count),
    range_count: rangeCount,
    first_seen: toWireTimestamp(row.first_seen),
    last_seen: toWireTimestamp(row.last_seen),
    sample_details: row.sample_details,
  };
}
