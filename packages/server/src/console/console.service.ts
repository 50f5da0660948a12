import {
  type ApiKeyInfo,
  type ConsoleProject,
  type ReportStats,
  SOURCES_LIMIT,
  type SourceStats,
  type StatsQuery,
  TIMESERIES_DEFAULT_DAYS,
  TIMESERIES_MAX_DAYS,
  type Timeseries,
  type ToolStats,
  type ToolStatsQuery,
} from '@debrief/protocol';
import type { Kysely } from 'kysely';
import { findSetting } from '../agent-resources/instance-settings.repository.js';
import { SELF_PROJECT_SETTING } from '../agent-resources/self-project.service.js';
import type { Database } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { toWireTimestamp } from '../db/wire-timestamp.js';
import { ApiError } from '../errors/api-error.js';
import { listApiKeys, parseScopes } from '../keys/key.service.js';
import { getOwnedProject, listProjects, type OwnedProjects } from '../projects/project.service.js';
import {
  countersAnswer,
  sumReportCountsBySource,
  sumReportCountsByTool,
} from '../reports/report-counts.repository.js';
import {
  countOutcomesByProjectSince,
  rollupsAnswer,
} from '../reports/report-rollups.repository.js';
import { addToStats, emptyStats, isOutcome } from '../reports/report-stats.js';
import { DAY_MS, startOfUtcDay, utcDay } from '../time/utc-time.js';
import {
  countByDay,
  countByDayInRange,
  countBySource,
  countBySourceInRange,
  countByTool,
  countByToolInRange,
} from './stats.repository.js';

/** The account's projects, oldest first, with per-outcome counts of the last 7 days. */
export async function listConsoleProjects(
  ctx: { db: Kysely<DB> },
  accountId: string,
): Promise<ConsoleProject[]> {
  const since = new Date(Date.now() - 7 * DAY_MS);
  const [projects, counts, selfProjectId] = await Promise.all([
    listProjects(ctx.db, accountId),
    countOutcomesByProjectSince(ctx.db, accountId, since),
    findSetting(ctx.db, SELF_PROJECT_SETTING),
  ]);
  const stats = new Map(projects.map((p) => [p.id, emptyStats()]));
  for (const { projectId, outcome, n } of counts) {
    const s = stats.get(projectId);
    if (s) addToStats(s, outcome, n);
  }
  return projects.map((p) => ({
    ...p,
    last_7_days: stats.get(p.id) ?? emptyStats(),
    ...(p.id === selfProjectId ? { instance_feedback: true } : {}),
  }));
}

/**
 * Outcomes per UTC day, one entry per day of the range, zero-filled. The range is `from`..`to`
 * (inclusive, as in the reports list); without them, the last 14 days up to today.
 */
export async function projectTimeseries(
  ctx: { db: Kysely<DB>; database: Database; ownedProjects: OwnedProjects },
  accountId: string,
  projectId: string,
  query: StatsQuery,
): Promise<Timeseries> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  const today = startOfUtcDay(new Date());
  const fromDay = query.from ? startOfUtcDay(query.from.start) : null;
  const lastDay = query.to
    ? startOfUtcDay(new Date(query.to.end.getTime() - 1))
    : Math.max(today, fromDay ?? today);
  const firstDay = fromDay ?? lastDay - (TIMESERIES_DEFAULT_DAYS - 1) * DAY_MS;
  const dayCount = Math.round((lastDay - firstDay) / DAY_MS) + 1;
  if (dayCount > TIMESERIES_MAX_DAYS) {
    throw new ApiError(
      'invalid_query',
      `The range covers ${dayCount} days; a timeseries covers at most ${TIMESERIES_MAX_DAYS}. Narrow from and to.`,
      { errors: [{ field: 'from', message: `range must be at most ${TIMESERIES_MAX_DAYS} days` }] },
    );
  }
  const filters = {
    toolName: query.tool_name,
    source: query.source,
    from: query.from?.start ?? new Date(firstDay),
    before: query.to?.end ?? new Date(lastDay + DAY_MS),
  };
  // The days' whole hours from the rollups, the partial hours at the range's ends counted.
  const count = rollupsAnswer(filters) ? countByDayInRange : countByDay;
  const rows = await count(ctx.db, ctx.database.dialect, project.id, filters);
  const days = Array.from({ length: dayCount }, (_, i) => ({
    date: utcDay(firstDay + i * DAY_MS),
    success: 0,
    failure: 0,
    confusing: 0,
    gave_up: 0,
    request: 0,
  }));
  const byDate = new Map(days.map((d) => [d.date, d]));
  for (const { day, outcome, n } of rows) {
    const entry = byDate.get(day);
    if (entry && isOutcome(outcome)) entry[outcome] += n;
  }
  return { days };
}

/**
 * A page of per-tool counts, worst success rate first (then busiest first), under
 * from/to/source. Sorted and paged in the database: a project may hold up to
 * MAX_TOOL_NAMES_PER_PROJECT tools (older ones more), and the whole list serialised at once
 * would block the event loop for ~450 ms at 100,000 of them.
 */
export async function projectToolStats(
  ctx: { db: Kysely<DB>; database: Database; ownedProjects: OwnedProjects },
  accountId: string,
  projectId: string,
  query: Omit<ToolStatsQuery, 'tool_name'>,
): Promise<ToolStats> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  const filters = { source: query.source, from: query.from?.start, before: query.to?.end };
  const page = { offset: (query.page - 1) * query.limit, limit: query.limit };
  // As the reports list's stats (report.service.ts): all time from the running counters, a
  // date range from the hourly rollups.
  const { tools, total } = countersAnswer(filters)
    ? await sumReportCountsByTool(ctx.db, project.id, filters, page)
    : await (rollupsAnswer(filters) ? countByToolInRange : countByTool)(
        ctx.db,
        ctx.database.dialect,
        project.id,
        filters,
        page,
      );
  return {
    tools: tools.map(({ toolName, ...counts }) => ({
      tool_name: toolName,
      ...counts,
      success_rate: successRate(counts),
    })),
    pagination: { page: query.page, limit: query.limit, total },
  };
}

/**
 * The project's sources with their report counts, busiest first, under from/to/tool_name (not
 * under `source`: the list offers the other sources while one is selected). At most
 * SOURCES_LIMIT, so a project whose agents send a new source each time cannot grow it without
 * bound; `truncated` says when some were left out.
 */
export async function projectSourceStats(
  ctx: { db: Kysely<DB>; database: Database; ownedProjects: OwnedProjects },
  accountId: string,
  projectId: string,
  query: Omit<StatsQuery, 'source'>,
): Promise<SourceStats> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  const filters = { toolName: query.tool_name, from: query.from?.start, before: query.to?.end };
  const { dialect } = ctx.database;
  // As projectToolStats: the running counters hold all time, a date range the rollups.
  const rows = countersAnswer(filters)
    ? await sumReportCountsBySource(ctx.db, dialect, project.id, filters, SOURCES_LIMIT)
    : await (rollupsAnswer(filters) ? countBySourceInRange : countBySource)(
        ctx.db,
        dialect,
        project.id,
        filters,
        SOURCES_LIMIT,
      );
  return {
    sources: rows.slice(0, SOURCES_LIMIT).map(({ source, n }) => ({ source, total: n })),
    truncated: rows.length > SOURCES_LIMIT,
  };
}

/**
 * The share of a tool's uses that worked: success / (success + failure + confusing + gave_up).
 * A `request` asks for something the tool lacks; it is not a use that went well or badly, so a
 * tool with only requests has no rate (null) instead of ranking worst at 0 %.
 */
function successRate(s: ReportStats): number | null {
  const uses = s.success + s.failure + s.confusing + s.gave_up;
  return uses === 0 ? null : s.success / uses;
}

/** The account's API keys, newest first, without secrets. */
export async function listConsoleApiKeys(
  ctx: { db: Kysely<DB> },
  accountId: string,
): Promise<ApiKeyInfo[]> {
  return (await listApiKeys(ctx.db, accountId)).map((row) => ({
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    created_at: toWireTimestamp(row.created_at),
    last_used_at: toWireTimestamp(row.last_used_at),
    revoked_at: toWireTimestamp(row.revoked_at),
    scopes: parseScopes(row.scopes),
  }));
}
