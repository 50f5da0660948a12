import {
  formatWireTimestamp,
  type ListReportsQuery,
  type Report,
  type ReportList,
  type ReportMetadata,
  type SubmitReportIssue,
  type ValidReportInput,
} from '@debrief/protocol';
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { type DB, toDate } from '../db/schema.js';
import { toWireTimestamp } from '../db/wire-timestamp.js';
import { newId } from '../ids.js';
import { unknownIngestKeyError } from '../keys/key.service.js';
import type { Admission } from '../limits/ingest-gate.js';
import { usageWindows } from '../limits/storage-limits.js';
import { storageLimitError } from '../limits/storage-refusal.js';
import type { ThrottleLog } from '../limits/throttle-log.js';
import { getOwnedProject, type OwnedProjects } from '../projects/project.service.js';
import type { EventBus } from '../realtime/event-bus.js';
import { seekDeepPage } from './deep-page.repository.js';
import type { IssueAnswerPort } from './issue-answer-port.js';
import {
  countReportsByOutcome,
  listReportsPage,
  type PageStart,
  type ReportFilters,
  type ReportRow,
} from './report.repository.js';
import { countersAnswer, sumReportCounts } from './report-counts.repository.js';
import { type CursorScope, decodeCursor, encodeCursor } from './report-cursor.js';
import { countOutcomesInRange, rollupsAnswer } from './report-rollups.repository.js';
import { addToStats, emptyStats } from './report-stats.js';
import type { ReportScreen } from './screening/report-screen.js';
import type { ReportWriter } from './write-path/index.js';

export function toWireReport(row: ReportRow): Report {
  return {
    id: row.id,
    outcome: row.outcome as Report['outcome'],
    tool_name: row.tool_name,
    source: row.source,
    details: row.details,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as ReportMetadata),
    created_at: toWireTimestamp(row.created_at),
    redactions: Number(row.redactions),
    issue_id: row.issue_id,
    issue_reason: row.issue_reason,
  };
}

/**
 * Stores a report if its key is known and the account has quota left this month (and the
 * project under its cap, the address under its daily share): the key lookup, the counts and the
 * insert commit together or not at all (reports/write-path/), and the 201 is sent only after the
 * commit. `admission` is what the token buckets let through (limits/ingest-gate.ts).
 * Credentials are redacted, and label caps applied, before anything is written or published
 * (reports/screening/).
 */
export async function submitReport(
  ctx: {
    reportScreen: ReportScreen;
    reportWriter: ReportWriter;
    throttles: ThrottleLog;
    bus: EventBus;
    issueAnswers: IssueAnswerPort | null;
  },
  ingestKey: string,
  valid: ValidReportInput,
  admission: Admission,
): Promise<{ report: Report; issue: SubmitReportIssue | null }> {
  const { input, redactions } = await ctx.reportScreen.screen(ingestKey, valid);
  const now = new Date();
  const report = {
    id: newId(now.getTime()),
    outcome: input.outcome,
    toolName: input.tool_name,
    source: input.source,
    details: input.details,
    metadata: input.metadata === null ? null : JSON.stringify(input.metadata),
    createdAt: now,
    redactions,
  };
  const { address } = admission;
  const outcome = await ctx.reportWriter.submit({
    ingestKey,
    ...usageWindows(now),
    address,
    report,
  });
  if (outcome.status === 'unknown_key') throw unknownIngestKeyError();
  if (outcome.status === 'address_daily' || outcome.status === 'project_cap') {
    // Counted in the project's throttled statistics (THROTTLE_REASONS); the account's quota is not.
    ctx.throttles.record(outcome.projectId, address, outcome.status, now.getTime());
  }
  if (outcome.status !== 'stored') throw storageLimitError(outcome.status, outcome.limit, now);
  const stored: Report = {
    id: report.id,
    outcome: input.outcome,
    tool_name: input.tool_name,
    source: input.source,
    details: input.details,
    metadata: input.metadata,
    created_at: formatWireTimestamp(now),
    redactions,
    // Grouped a moment later, off the request path (issues/pipeline/grouper.ts).
    issue_id: null,
    issue_reason: null,
  };
  // The 201 follows the announcement (realtime/event-bus.ts): the next report this client
  // sends, to any instance, reaches the live streams after this one.
  const published = ctx.bus.publish(outcome.projectId, stored);
  // What the developer already knows of the report's issue, for the agent: synchronously
  // nothing for a project with no answerable issue; else found within a bounded wait.
  const answer = ctx.issueAnswers?.answer({
    id: report.id,
    projectId: outcome.projectId,
    outcome: input.outcome,
    toolName: input.tool_name,
    source: input.source,
    details: input.details,
    metadata: input.metadata,
  });
  if (published) await published;
  return { report: stored, issue: answer ? await answer : null };
}

export async function listReports(
  ctx: { db: Kysely<DB>; database: Database; ownedProjects: OwnedProjects },
  accountId: string,
  projectId: string,
  query: ListReportsQuery,
): Promise<ReportList> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  const facets: Omit<ReportFilters, 'outcome'> = {
    toolName: query.tool_name,
    source: query.source,
    from: query.from?.start,
    before: query.to?.end,
    issueId: query.issue_id,
  };
  const scope: CursorScope = { projectId: project.id, ...facets, outcome: query.outcome };
  const { start, position } = pageStart(query, scope);
  // Every report acknowledged before this request is on the page and in the stats: each read
  // of the report tables waits for the writer first (db/routed-dialect.ts).
  // All time from the running counters; a date range from the hourly rollups (its partial
  // hours counted from the reports); an empty label filter, which they cannot tell from an
  // absent label, from the reports.
  const { dialect } = ctx.database;
  const counts = countersAnswer(facets)
    ? await sumReportCounts(ctx.db, project.id, facets)
    : rollupsAnswer(facets)
      ? await countOutcomesInRange(ctx.db, dialect, project.id, facets)
      : await countReportsByOutcome(ctx.db, dialect, project.id, facets);
  const stats = emptyStats();
  for (const [outcome, n] of counts) addToStats(stats, outcome, n);
  const matching = query.outcome ? stats[query.outcome] : stats.total;
  // A page past the end is an empty page, answered without asking the database for it. One row
  // more than the page says whether another page follows (next_cursor), exactly. A deep page
  // skips whole days and hours by their rollup counts first (deep-page.repository.ts).
  let fetched: Awaited<ReturnType<typeof listReportsPage>> = [];
  if (!('offset' in start && start.offset >= matching)) {
    const seek = await seekDeepPage(
      ctx.db,
      project.id,
      { ...facets, outcome: query.outcome },
      start,
    );
    fetched = await listReportsPage(ctx.db, dialect, project.id, seek.filters, {
      ...seek.page,
      limit: query.limit + 1,
    });
  }
  const rows = fetched.slice(0, query.limit);
  const last = rows.at(-1);
  const nextCursor =
    fetched.length > query.limit && last
      ? encodeCursor(
          scope,
          { createdAt: toDate(last.created_at).toISOString(), id: last.id },
          position + rows.length,
        )
      : null;
  return {
    project: { id: project.id, name: project.name },
    stats,
    reports: rows.map(toWireReport),
    pagination: {
      // After a cursor: the page these rows had when the walk began, at this limit.
      page: Math.floor(position / query.limit) + 1,
      limit: query.limit,
      total: matching,
      next_cursor: nextCursor,
    },
  };
}

/** Where the page starts: by number (an offset), or after the key a cursor carries. */
function pageStart(
  query: ListReportsQuery,
  scope: CursorScope,
): { start: PageStart; position: number } {
  if (query.cursor !== undefined) {
    const { after, position } = decodeCursor(query.cursor, scope);
    return { start: { after }, position };
  }
  const offset = ((query.page ?? 1) - 1) * query.limit;
  return { start: { offset }, position: offset };
}
