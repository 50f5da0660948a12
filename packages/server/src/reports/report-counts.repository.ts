import { type Kysely, sql } from 'kysely';
import { compiledShapes } from '../db/compiled-shapes.js';
import type { Dialect } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { byCodePoint } from './report.repository.js';
import {
  TOOL_ORDER,
  type ToolCounts,
  type ToolPage,
  toolColumns,
  toToolCounts,
} from './tool-counts.js';

/**
 * Whether the running counters can answer counts under these filters: they hold all time, so
 * not under a date range (that counts the reports in it, an index range scan). Nor under an
 * empty label filter, which matches nothing but is how the counters store an absent label: it
 * goes the slow, exact way too.
 */
export function countersAnswer(filters: {
  toolName?: string;
  source?: string;
  from?: Date;
  before?: Date;
  /** The counters know no issues: an issue filter counts the reports themselves. */
  issueId?: string;
}): boolean {
  return (
    !filters.from &&
    !filters.before &&
    filters.issueId === undefined &&
    filters.toolName !== '' &&
    filters.source !== ''
  );
}

/**
 * Reports per outcome, from the counters, for an optional tool_name and source (no dates):
 * without either, from the project's per-outcome totals (migration 0018), a handful of rows
 * where `report_counts` holds one per tool, source and outcome.
 */
export async function sumReportCounts(
  db: Kysely<DB>,
  projectId: string,
  filters: { toolName?: string; source?: string },
): Promise<Map<string, number>> {
  const shape = { tool: filters.toolName !== undefined, source: filters.source !== undefined };
  const params = { projectId, toolName: filters.toolName ?? null, source: filters.source ?? null };
  const { rows } = await db.executeQuery(countsQuery(db, shape, params));
  return new Map(rows.map((row) => [row.outcome, Number(row.n)]));
}

/** Compiled once per filter shape: every reports list asks it (compiled-shapes.ts). */
const countsQuery = compiledShapes(
  (
    db: Kysely<DB>,
    shape: { tool: boolean; source: boolean },
    p: { projectId: string; toolName: string | null; source: string | null },
  ) => {
    if (!shape.tool && !shape.source)
      return db
        .selectFrom('report_outcome_counts')
        .select(['outcome', 'count as n'])
        .where('project_id', '=', p.projectId);
    let query = db
      .selectFrom('report_counts')
      .select((eb) => ['outcome', eb.fn.sum<number | string>('count').as('n')])
      .where('project_id', '=', p.projectId);
    if (shape.tool) query = query.where('tool_name', '=', p.toolName);
    if (shape.source) query = query.where('source', '=', p.source);
    return query.groupBy('outcome');
  },
);

/**
 * A page of tools with their counts, from the counters, for an optional source, and how many
 * tools there are: sorted and paged by the database (console/stats.repository.ts, toolColumns).
 */
export async function sumReportCountsByTool(
  db: Kysely<DB>,
  projectId: string,
  filters: { source?: string },
  page: ToolPage,
): Promise<{ tools: ToolCounts[]; total: number }> {
  let query = db
    .selectFrom('report_counts')
    .select(['tool_name', ...toolColumns('counter')])
    .where('project_id', '=', projectId);
  if (filters.source !== undefined) query = query.where('source', '=', filters.source);
  const rows = await query
    .groupBy('tool_name')
    .orderBy(TOOL_ORDER)
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  let count = db
    .selectFrom('report_counts')
    .select(sql<number | string>`count(distinct tool_name)`.as('n'))
    .where('project_id', '=', projectId);
  if (filters.source !== undefined) count = count.where('source', '=', filters.source);
  const counted = await count.executeTakeFirst();
  return { tools: rows.map(toToolCounts), total: Number(counted?.n ?? 0) };
}

/**
 * Sources by report count, from the counters, for an optional tool_name: busiest first, then by
 * name in code-point order. Up to `limit + 1` rows, so the caller can tell whether the list was
 * cut. Reports without a source ('' here) are left out.
 */
export async function sumReportCountsBySource(
  db: Kysely<DB>,
  dialect: Dialect,
  projectId: string,
  filters: { toolName?: string },
  limit: number,
): Promise<{ source: string; n: number }[]> {
  const n = sql<number | string>`sum(count)`;
  let query = db
    .selectFrom('report_counts')
    .select(['source', n.as('n')])
    .where('project_id', '=', projectId)
    .where('source', '<>', '');
  if (filters.toolName !== undefined) query = query.where('tool_name', '=', filters.toolName);
  const rows = await query
    .groupBy('source')
    .orderBy(n, 'desc')
    .orderBy(byCodePoint(dialect, 'source'))
    .limit(limit + 1)
    .execute();
  return rows.map((row) => ({ source: row.source, n: Number(row.n) }));
}
