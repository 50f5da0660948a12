import { type Kysely, type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import type { Dialect } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { applyReportFilters, type ReportFilters } from './report.repository.js';
import { ROLLUP_UPSERT_SQL, rollupHour, rollupKey } from './report-rollup-key.js';

/**
 * The hourly rollups (migration 0010): how many reports a project stored per UTC hour and
 * (tool_name, source, outcome). Written in the transaction that stores the reports they count
 * (the key and the upsert: report-rollup-key.ts); read for every count under a date range, so
 * those cost O(hours) rows instead of one per report.
 */

const HOUR_MS = 3_600_000;

/**
 * ROLLUP_UPSERT_SQL cut at its `?`s: as the fragments of a `sql` template, Kysely binds the
 * parameters between them in each dialect's own form (`?`, `$1`), so both writers run one text.
 */
const UPSERT_FRAGMENTS = ROLLUP_UPSERT_SQL.split('?') as unknown as TemplateStringsArray;

/** Adds a report (or `count` alike) to its rollup row; in the transaction that inserts it. */
export async function addReportRollup(
  db: Kysely<DB>,
  report: Parameters<typeof rollupKey>[0],
  count = 1,
): Promise<void> {
  await sql(UPSERT_FRAGMENTS, ...rollupKey(report), count).execute(db);
}

/** A half-open time range [from, before); either end may be open. */
export interface TimeRange {
  from?: Date;
  before?: Date;
}

/**
 * How a range is counted with exact edges: `hours`, the whole hours inside it, from the
 * rollups (null when it holds none), and `edges`, the partial hours at its ends, from the
 * reports — each shorter than an hour. A range inside one or two neighbouring hours, with no
 * whole hour in between, is one edge.
 */
export function splitRange(range: TimeRange): { hours: TimeRange | null; edges: TimeRange[] } {
  const { from, before } = range;
  const firstHour = from && new Date(Math.ceil(from.getTime() / HOUR_MS) * HOUR_MS);
  const endHour = before && rollupHour(before);
  if (firstHour && endHour && firstHour.getTime() >= endHour.getTime()) {
    return { hours: null, edges: [{ from, before }] };
  }
  const edges: TimeRange[] = [];
  if (from && firstHour && from.getTime() < firstHour.getTime())
    edges.push({ from, before: firstHour });
  if (before && endHour && endHour.getTime() < before.getTime())
    edges.push({ from: endHour, before });
  return { hours: { from: firstHour, before: endHour }, edges };
}

/**
 * Whether the rollups answer counts under these filters: under a date range (all time is the
 * running counters' job, report-counts.repository.ts), and not under an empty label filter,
 * which matches no report but is how the rollups store an absent label.
 */
export function rollupsAnswer(filters: Omit<ReportFilters, 'outcome'>): boolean {
  const dated = filters.from !== undefined || filters.before !== undefined;
  return dated && filters.toolName !== '' && filters.source !== '';
}

/** The label columns a count groups by; the others are left out of each row (''). */
export type RollupLabel = 'tool_name' | 'source' | 'day';

/** One row of `countedRows`: `count` reports with these labels ('' = absent or not asked). */
interface CountedRow {
  tool_name: string;
  source: string;
  outcome: string;
  day: string;
  count: number | string;
}

/**
 * The UTC day (`YYYY-MM-DD`) of a timestamp column: SQLite stores ISO 8601 UTC text, so its
 * first ten characters; PostgreSQL a timestamptz, formatted in UTC.
 */
export function utcDayOf(dialect: Dialect, column: string): RawBuilder<string> {
  return dialect === 'postgres'
    ? sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD')`
    : sql<string>`substr(${sql.ref(column)}, 1, 10)`;
}

/**
 * The reports under the filters (outcome left out: counts are per outcome), as rows of
 * (tool_name, source, outcome, day, count) to group and sum: the rollup rows of the range's
 * whole hours and, UNION ALL, one row per report of its partial hours. Alias it and select from
 * it (`db.selectFrom(countedRows(…).as('counted'))`).
 *
 * Only the `labels` asked for are read; the others are ''. That matters for the reports: their
 * time index carries `outcome` but not the labels, so asking for a label there would look up
 * each report's row. Each part seeks on its own index: a tool or source filter and the time
 * range (report-query-plans.test.ts); no part groups, so SQLite's planner is not tempted to
 * walk an index for its order (report.repository.ts, groupKey).
 */
export function countedRows(
  db: Kysely<DB>,
  dialect: Dialect,
  projectId: string,
  filters: Omit<ReportFilters, 'outcome'>,
  labels: readonly RollupLabel[],
): SelectQueryBuilder<DB, never, CountedRow> {
  const asked = (label: RollupLabel) => labels.includes(label);
  const { hours, edges } = splitRange(filters);
  const parts: SelectQueryBuilder<DB, never, CountedRow>[] = [];
  if (hours) {
    let q = db
      .selectFrom('report_rollups')
      .select([
        asked('tool_name')
          ? sql<string>`report_rollups.tool_name`.as('tool_name')
          : empty('tool_name'),
        asked('source') ? sql<string>`report_rollups.source`.as('source') : empty('source'),
        sql<string>`report_rollups.outcome`.as('outcome'),
        asked('day') ? utcDayOf(dialect, 'report_rollups.hour').as('day') : empty('day'),
        sql<number | string>`report_rollups.count`.as('count'),
      ])
      .where('report_rollups.project_id', '=', projectId);
    if (filters.toolName !== undefined)
      q = q.where('report_rollups.tool_name', '=', filters.toolName);
    if (filters.source !== undefined) q = q.where('report_rollups.source', '=', filters.source);
    if (hours.from) q = q.where('report_rollups.hour', '>=', hours.from.toISOString());
    if (hours.before) q = q.where('report_rollups.hour', '<', hours.before.toISOString());
    parts.push(q as unknown as SelectQueryBuilder<DB, never, CountedRow>);
  }
  for (const edge of edges) {
    const q = applyReportFilters(
      db
        .selectFrom('reports')
        .select([
          asked('tool_name')
            ? sql<string>`coalesce(reports.tool_name, '')`.as('tool_name')
            : empty('tool_name'),
          asked('source')
            ? sql<string>`coalesce(reports.source, '')`.as('source')
            : empty('source'),
          sql<string>`reports.outcome`.as('outcome'),
          asked('day') ? utcDayOf(dialect, 'reports.created_at').as('day') : empty('day'),
          sql<number | string>`1`.as('count'),
        ]),
      projectId,
      { toolName: filters.toolName, source: filters.source, ...edge },
    );
    parts.push(q as unknown as SelectQueryBuilder<DB, never, CountedRow>);
  }
  const [first, ...rest] = parts;
  // splitRange always yields whole hours or an edge.
  if (!first) throw new Error('countedRows: a date range with neither hours nor edges');
  return rest.reduce((union, part) => union.unionAll(part), first);
}

function empty<A extends string>(alias: A) {
  return sql<string>`''`.as(alias);
}

/** Reports per outcome under the filters and a date range, from the rollups (exact edges). */
export async function countOutcomesInRange(
  db: Kysely<DB>,
  dialect: Dialect,
  projectId: string,
  filters: Omit<ReportFilters, 'outcome'>,
): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom(countedRows(db, dialect, projectId, filters, []).as('counted'))
    .select(['outcome', sql<number | string>`sum(count)`.as('n')])
    .groupBy('outcome')
    .execute();
  return new Map(rows.map((row) => [row.outcome, Number(row.n)]));
}
