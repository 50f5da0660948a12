import {
  formatWireTimestamp,
  type ListReportsQuery,
  type Report,
  type ReportList,
  type ReportMetadata,
  type ValidReportInput,
} from '@debrief/protocol';
import { effectiveMonthlyQuota } from '../accounts/account.service.js';
import type { AppContext } from '../context.js';
import { toDate } from '../db/schema.js';
import { ApiError } from '../errors/api-error.js';
import { newId } from '../ids.js';
import type { IngestTarget } from '../keys/key.service.js';
import { getOwnedProject } from '../projects/project.service.js';
import {
  countReportsByOutcome,
  insertReport,
  listReportsPage,
  type NewReport,
  type ReportFilters,
  type ReportRow,
} from './report.repository.js';
import { incrementReportCount, sumReportCounts } from './report-counts.repository.js';
import { addToStats, emptyStats } from './report-stats.js';
import { incrementUsageWithinQuota } from './usage.repository.js';

export function usageMonth(date: Date): string {
  return date.toISOString().slice(0, 7);
}

export function startOfNextMonth(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1));
}

export function toWireReport(row: ReportRow): Report {
  return {
    id: row.id,
    outcome: row.outcome as Report['outcome'],
    tool_name: row.tool_name,
    source: row.source,
    details: row.details,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as ReportMetadata),
    created_at: formatWireTimestamp(toDate(row.created_at)),
  };
}

/** Thrown inside the transaction to roll back a report the quota turned out not to allow. */
class QuotaUsedUp extends Error {}

/**
 * The quota check, the insert and the counters, committed together (before the 201; on SQLite
 * together with the reports of concurrent requests: group commit). On PostgreSQL the hot rows —
 * the account's usage row, which every report of the account updates, and the counter row —
 * are taken last, so their locks are held for one round trip and the commit rather than the
 * whole transaction (+39 % ingest, BENCHMARKS.md); over quota, the transaction rolls back. On
 * SQLite (a single writer, no row locks) the check comes first, so a refused report never
 * forces a group-commit batch to roll back.
 */
async function storeWithinQuota(
  ctx: AppContext,
  accountId: string,
  month: string,
  limit: number | null,
  row: NewReport,
): Promise<boolean> {
  if (ctx.database.dialect === 'sqlite') {
    return ctx.database.groupCommit(async (trx) => {
      if (!(await incrementUsageWithinQuota(trx, accountId, month, limit))) return false;
      await insertReport(trx, row);
      await incrementReportCount(trx, row);
      return true;
    });
  }
  try {
    return await ctx.database.groupCommit(async (trx) => {
      await insertReport(trx, row);
      await incrementReportCount(trx, row);
      if (!(await incrementUsageWithinQuota(trx, accountId, month, limit))) throw new QuotaUsedUp();
      return true;
    });
  } catch (error) {
    if (error instanceof QuotaUsedUp) return false;
    throw error;
  }
}

/**
 * Stores a report if the account has quota left this month. The quota count and the insert
 * commit together or not at all; a 201 is sent only after the commit.
 */
export async function submitReport(
  ctx: AppContext,
  target: IngestTarget,
  input: ValidReportInput,
): Promise<Report> {
  const now = new Date();
  const limit = effectiveMonthlyQuota(ctx, {
    monthly_quota: target.monthlyQuota,
    quota_unlimited: target.quotaUnlimited ? 1 : 0,
  });
  const row = {
    id: newId(now.getTime()),
    projectId: target.projectId,
    outcome: input.outcome,
    toolName: input.tool_name,
    source: input.source,
    details: input.details,
    metadata: input.metadata === null ? null : JSON.stringify(input.metadata),
    createdAt: now,
  };
  const stored = await storeWithinQuota(ctx, target.accountId, usageMonth(now), limit, row);
  if (!stored) {
    const resetAt = startOfNextMonth(now);
    const retryAfter = Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000));
    throw new ApiError(
      'quota_exceeded',
      `This account has stored its ${limit} reports for ${usageMonth(now)} (UTC), so this report was not stored. The quota resets at ${formatWireTimestamp(resetAt)}; retry after that, or ask the developer of this tool to raise the limit.`,
      { headers: { 'Retry-After': String(retryAfter) } },
    );
  }
  const report = toWireReport({
    id: row.id,
    outcome: row.outcome,
    tool_name: row.toolName,
    source: row.source,
    details: row.details,
    metadata: row.metadata,
    created_at: now,
  });
  ctx.bus.publish(target.projectId, report);
  return report;
}

export async function listReports(
  ctx: AppContext,
  accountId: string,
  projectId: string,
  query: ListReportsQuery,
): Promise<ReportList> {
  const project = await getOwnedProject(ctx.db, accountId, projectId);
  const facets: Omit<ReportFilters, 'outcome'> = {
    toolName: query.tool_name,
    source: query.source,
    from: query.from?.start,
    before: query.to?.end,
  };
  // Without a date range the running counters answer at once; a date range counts the reports
  // in it (an index range scan). '' is how the counters store an absent label, so an empty
  // label filter (which matches nothing) goes the slow, exact way too.
  const counters = !facets.from && !facets.before && facets.toolName !== '' && facets.source !== '';
  const counts = counters
    ? await sumReportCounts(ctx.db, project.id, facets)
    : await countReportsByOutcome(ctx.db, project.id, facets);
  const stats = emptyStats();
  for (const [outcome, n] of counts) addToStats(stats, outcome, n);
  const matching = query.outcome ? stats[query.outcome] : stats.total;
  const offset = (query.page - 1) * query.limit;
  // A page past the end is an empty page, answered without asking the database for it.
  const rows =
    offset < matching
      ? await listReportsPage(
          ctx.db,
          project.id,
          { ...facets, outcome: query.outcome },
          { offset, limit: query.limit },
        )
      : [];
  return {
    project: { id: project.id, name: project.name },
    stats,
    reports: rows.map(toWireReport),
    pagination: {
      page: query.page,
      limit: query.limit,
      total: matching,
    },
  };
}
