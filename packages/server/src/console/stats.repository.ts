import { type Kysely, sql } from 'kysely';
import { compiledShapes } from '../db/compiled-shapes.js';
import type { Dialect } from '../db/database.js';
import type { DB } from '../db/schema.js';
import {
  applyReportFilters,
  byCodePoint,
  groupKey,
  type ReportFilters,
} from '../reports/report.repository.js';
import {
  type CountParams,
  type CountShape,
  countedRows,
  countOf,
  utcDayOf,
} from '../reports/report-rollups.repository.js';
import {
  TOOL_ORDER,
  type ToolCounts,
  type ToolPage,
  toolColumns,
  toToolCounts,
} from '../reports/tool-counts.js';

/** The reports filters but `outcome`: charts show every outcome. */
export type StatsFilters = Omit<ReportFilters, 'outcome'>;

/** Reports per UTC day and outcome under the filters. */
export async function countByDay(
  db: Kysely<DB>,
  dialect: Dialect,
  projectId: string,
  filters: StatsFilters,
) {
  const day = utcDayOf(dialect, 'reports.created_at');
  const rows = await applyReportFilters(
    db
      .selectFrom('reports')
      .select((eb) => [
        day.as('day'),
        'reports.outcome',
        eb.fn.countAll<number | string>().as('n'),
      ]),
    projectId,
    filters,
  )
    .groupBy([day, 'reports.outcome'])
    .execute();
  return rows.map((row) => ({ day: row.day, outcome: row.outcome, n: Number(row.n) }));
}

/** A page of tools under the filters, counted from the reports (a date range), and how many. */
export async function countByTool(
  db: Kysely<DB>,
  dialect: Dialect,
  projectId: string,
  filters: Omit<StatsFilters, 'toolName'>,
  page: ToolPage = { offset: 0, limit: 100 },
): Promise<{ tools: ToolCounts[]; total: number }> {
  const rows = await applyReportFilters(
    db.selectFrom('reports').select(['reports.tool_name', ...toolColumns('report')]),
    projectId,
    filters,
  )
    .groupBy(groupKey(dialect, 'reports.tool_name'))
    .orderBy(TOOL_ORDER)
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const counted = await db
    .selectFrom(
      applyReportFilters(db.selectFrom('reports').select('reports.tool_name'), projectId, filters)
        .groupBy(groupKey(dialect, 'reports.tool_name'))
        .as('tools'),
    )
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirst();
  return { tools: rows.map(toToolCounts), total: Number(counted?.n ?? 0) };
}

/**
 * Sources by report count under the filters, busiest first, then by name in code-point order
 * on both dialects. The rows with no source form a group of their own: up to `limit + 1` rows
 * with a source, so the caller can tell whether the list was cut.
 */
export async function countBySource(
  db: Kysely<DB>,
  dialect: Dialect,
  projectId: string,
  filters: Omit<StatsFilters, 'source'>,
  limit: number,
): Promise<{ source: string; n: number }[]> {
  const n = sql<number | string>`count(*)`;
  const rows = await applyReportFilters(
    db.selectFrom('reports').select(['reports.source', n.as('n')]),
    projectId,
    filters,
  )
    .groupBy(groupKey(dialect, 'reports.source'))
    .orderBy(n, 'desc')
    .orderBy(byCodePoint(dialect, 'reports.source'))
    // One more for the no-source group, which is dropped below.
    .limit(limit + 2)
    .execute();
  return rows
    .filter((row): row is typeof row & { source: string } => row.source !== null)
    .slice(0, limit + 1)
    .map((row) => ({ source: row.source, n: Number(row.n) }));
}

/*
 * The same counts under a date range, from the hourly rollups with exact edges
 * (reports/report-rollups.repository.ts, countedRows): O(hours) rows whatever the number of
 * reports. The functions above count the reports themselves; they stay for the one case the
 * rollups cannot answer, an empty label filter (rollupsAnswer).
 */

/** Reports per UTC day and outcome under the filters and a date range, from the rollups. */
export async function countByDayInRange(
  db: Kysely<DB>,
  dialect: Dialect,
  projectId: string,
  filters: StatsFilters,
) {
  const { shape, params } = countOf(dialect, projectId, filters, ['day']);
  const { rows } = await db.executeQuery(byDayInRange(db, shape, params));
  return rows.map((row) => ({ day: row.day, outcome: row.outcome, n: Number(row.n) }));
}

/*
 * The dashboard's charts and tables under a date range are compiled once per shape
 * (db/compiled-shapes.ts): each of its views asks them again and again.
 */
const byDayInRange = compiledShapes((db: Kysely<DB>, shape: CountShape, p: CountParams) =>
  db
    .selectFrom(countedRows(db, shape, p).as('counted'))
    .select(['day', 'outcome', sql<number | string>`sum(count)`.as('n')])
    .groupBy(['day', 'outcome']),
);

/** As countByTool, from the rollups (a date range). */
export async function countByToolInRange(
  db: Kysely<DB>,
  dialect: Dialect,
  projectId: string,
  filters: Omit<StatsFilters, 'toolName'>,
  page: ToolPage = { offset: 0, limit: 100 },
): Promise<{ tools: ToolCounts[]; total: number }> {
  const { shape, params } = countOf(dialect, projectId, filters, ['tool_name']);
  const { rows } = await db.executeQuery(
    toolsInRange(db, shape, { ...params, limit: page.limit, offset: page.offset }),
  );
  const first = rows[0];
  if (first || page.offset === 0)
    return { tools: rows.map(toToolCounts), total: Number(first?.tools_in_all ?? 0) };
  // A page past the end has no row to carry the number of tools: count them.
  const total = await db
    .selectFrom(countedPerTool(db, shape, params))
    .select(sql<number | string>`count(distinct tool_name)`.as('n'))
    .executeTakeFirst();
  return { tools: [], total: Number(total?.n ?? 0) };
}

/**
 * Summed per tool and outcome first, then pivoted: the outcome columns' CASE expressions run
 * once per tool and outcome instead of once per rollup row (31 days of 30 tools are ~4,800
 * rows): 1.7–2.1 ms on SQLite for the dashboard's 30 days, against 2.2–2.5 pivoting every row
 * (two scratch runs).
 */
function countedPerTool(db: Kysely<DB>, shape: CountShape, p: CountParams) {
  return db
    .selectFrom(countedRows(db, shape, p).as('rows'))
    .select(['tool_name', 'outcome', sql<number | string>`sum(count)`.as('count')])
    .groupBy(['tool_name', 'outcome'])
    .as('counted');
}

const toolsInRange = compiledShapes(
  (db: Kysely<DB>, shape: CountShape, p: CountParams & { limit: number; offset: number }) =>
    db
      .selectFrom(countedPerTool(db, shape, p))
      .select(['tool_name', ...toolColumns('counter'), TOOLS_IN_ALL])
      .groupBy('tool_name')
      .orderBy(TOOL_ORDER)
      .limit(p.limit)
      .offset(p.offset),
);

/**
 * The number of groups (tools) on every row of a grouped query: a window runs after GROUP BY
 * and before LIMIT, so the page and the total come from one read of the rollups instead of two.
 */
const TOOLS_IN_ALL = sql<number | string>`count(*) over ()`.as('tools_in_all');

/** As countBySource, from the rollups (a date range). */
export async function countBySourceInRange(
  db: Kysely<DB>,
  dialect: Dialect,
  projectId: string,
  filters: Omit<StatsFilters, 'source'>,
  limit: number,
): Promise<{ source: string; n: number }[]> {
  const { shape, params } = countOf(dialect, projectId, filters, ['source']);
  const { rows } = await db.executeQuery(
    sourcesInRange(db, shape, { ...params, limit: limit + 1 }),
  );
  return rows.map((row) => ({ source: row.source, n: Number(row.n) }));
}

const sourcesInRange = compiledShapes(
  (db: Kysely<DB>, shape: CountShape, p: CountParams & { limit: number }) => {
    const n = sql<number | string>`sum(count)`;
    return db
      .selectFrom(countedRows(db, shape, p).as('counted'))
      .select(['source', n.as('n')])
      .where('source', '<>', '')
      .groupBy('source')
      .orderBy(n, 'desc')
      .orderBy(byCodePoint(shape.dialect, 'source'))
      .limit(p.limit);
  },
);
