import type { IssueStatus, IssueSummary, Outcome } from '@debrief/protocol';
import { toWireTimestamp } from '../db/wire-timestamp.js';
import type { IssueRow } from './issue.repository.js';

export function wireTime(value: Date | string): string;
export function wireTime(value: Date | string | null): string | null;
export function wireTime(value: Date | string | null): string | null {
  return value === null ? null : toWireTimestamp(value);
}

/**
 * An issue row as the list (and the `issue` events) show it. `rangeCount`: its reports in the
 * list's date range, only when the list was asked for one.
 */
export function toIssueSummary(row: IssueRow, rangeCount: number | null = null): IssueSummary {
  return {
    id: row.id,
    title: row.title,
    status: row.status as IssueStatus,
    regressed_at: wireTime(row.regressed_at),
    outcome: row.outcome as Outcome,
    tool_name: row.tool_name,
    report_count: Number(row.report_count),
    range_count: rangeCount,
    first_seen: wireTime(row.first_seen),
    last_seen: wireTime(row.last_seen),
    sample_details: row.sample_details,
  };
}
