import type { NotificationPayload, Report } from '@debrief/protocol';
import { formatWireTimestamp } from '@debrief/protocol';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { listIssueRowsByIds } from '../issues/issue.repository.js';
import { toIssueSummary } from '../issues/issue-wire.js';
import { findReportById } from '../reports/report.repository.js';
import { toWireReport } from '../reports/report.service.js';
import type { DestinationRecord } from './destination.repository.js';
import type { NotificationEntry } from './notification-port.js';

/** A report's details in a notification are cut to this many characters. */
export const DETAILS_MAX_CHARS = 1000;

/** What an event is about, read once for every destination it goes to. */
export interface EventSubject {
  project: { id: string; name: string; created_at: string };
  issue: ReturnType<typeof toIssueSummary> | null;
  report: Report | null;
}

export async function readSubject(
  db: Kysely<DB>,
  entry: NotificationEntry,
): Promise<EventSubject | null> {
  const project = await db
    .selectFrom('projects')
    .select(['id', 'name', 'created_at'])
    .where('id', '=', entry.projectId)
    .executeTakeFirst();
  if (!project) return null;
  const [issueRow] = entry.issueId ? await listIssueRowsByIds(db, [entry.issueId]) : [];
  const reportRow = entry.reportId ? await findReportById(db, entry.reportId) : undefined;
  return {
    project: {
      id: project.id,
      name: project.name,
      created_at: formatWireTimestamp(new Date(project.created_at)),
    },
    issue: issueRow ? toIssueSummary(issueRow) : null,
    report: reportRow ? toWireReport(reportRow) : null,
  };
}

/**
 * Whether a destination's filter lets the event through: matched against its report, or for
 * an event without one, against its issue (its outcome and tool; a source filter then passes).
 */
export function passesFilter(destination: DestinationRecord, subject: EventSubject): boolean {
  const { outcome, tool_name, source } = destination.filter;
  const against = subject.report ?? subject.issue;
  if (!against) return true;
  if (outcome !== undefined && against.outcome !== outcome) return false;
  if (tool_name !== undefined && against.tool_name !== tool_name) return false;
  if (source !== undefined && subject.report && subject.report.source !== source) return false;
  return true;
}

/**
 * The body every channel's message is made from: the read API's wire shapes, each with a `url`
 * to the dashboard; a report's details cut to DETAILS_MAX_CHARS and its metadata limited to the
 * keys the destination lists (none unless it lists some).
 */
export function buildPayload(
  publicUrl: string,
  entry: NotificationEntry,
  subject: EventSubject,
  destination: DestinationRecord,
  at: Date,
): NotificationPayload {
  const projectUrl = `${publicUrl}/projects/${subject.project.id}`;
  const data: NotificationPayload['data'] = {
    ...(entry.data ?? {}),
    project: { ...subject.project, url: projectUrl },
  };
  if (subject.issue)
    data.issue = { ...subject.issue, url: `${projectUrl}/issues/${subject.issue.id}` };
  if (subject.report) {
    const { details, metadata, ...rest } = subject.report;
    const kept = Object.entries(metadata ?? {}).filter(([key]) =>
      destination.metadataKeys.includes(key),
    );
    data.report = {
      ...rest,
      details:
        details.length > DETAILS_MAX_CHARS
          ? `${details.slice(0, DETAILS_MAX_CHARS - 1)}…`
          : details,
      metadata: kept.length > 0 ? Object.fromEntries(kept) : null,
      url: rest.issue_id ? `${projectUrl}/issues/${rest.issue_id}` : `${projectUrl}/reports`,
    };
  }
  return { type: entry.type, timestamp: formatWireTimestamp(at), data };
}
