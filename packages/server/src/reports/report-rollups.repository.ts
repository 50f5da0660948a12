import { type Kysely, type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import { compiledShapes } from '../db/compiled-shapes.js';
import type { Dialect } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { DAY_MS } from '../time/utc-time.js';
import type { ReportFilters } from './report.repository.js';
import { ROLLUP_GRAINS, type RollupGrain, type RollupLabel } from './report-rollup-key.js';

/**
 * The rollups (migrations 0010, 0015 and 0016): how many reports a project stored per UTC
 * minute, hour, day or week, by outcome and some of (tool_name, source). Written in the transaction that
 * stores the reports they count (write-path/plan-batch.ts, REPORT_COUNTERS, with the keys of
 * report-rollup-key.ts); read for every count under a date range, so those cost O(buckets) rows
 * instead of one per report.
 */

/** A half-open time range [from, before); either end may be open. */
export interface TimeRange {
  from?: Date;
  before?: Date;
}

/** A piece of a range and what counts it: a rollup grain's whole buckets, or the reports. */
export type RangePiece = TimeRange & { grain: RollupGrain | null };

/**
 * The rollups a count reads, coarsest first: for each bucket size, the table with the fewest
 * labels that still has every label the count groups or filters by. A size with no such table
 * (minutes, under a tool or source) is left out: its pieces fall to the next finer one, or to
 * the reports. A table kept for one count (`exact`, the weeks of tools) only serves counts that
 * need exactly its labels.
 */
export function grainsFor(labels: readonly RollupLabel[]): RollupGrain[] {
  const best = new Map<number, RollupGrain>();
  for (const grain of ROLLUP_GRAINS as readonly RollupGrain[]) {
    if (!labels.every((label) => grain.labels.includes(label))) continue;
    if (grain.exact && grain.labels.length !== labels.length) continue;
    const kept = best.get(grain.ms);
    if (!kept || grain.labels.length < kept.labels.length) best.set(grain.ms, grain);
  }
  return [...best.values()].sort((a, b) => b.ms - a.ms);
}

const COARSEST_FIRST = grainsFor(['tool_name', 'source']);

/**
 * How a range is counted with exact edges: its whole days from a daily rollup, the whole hours
 * between them and its ends from an hourly one (and whole minutes from a minute one, when
 * `grains` has one), and what is left at its ends — each shorter than the finest grain — from
 * the reports. A range with no whole bucket of a grain is left to the finer ones. Pieces never
 * overlap and cover the range exactly.
 */
export function splitRange(range: TimeRange, grains = COARSEST_FIRST): RangePiece[] {
  const { from, before } = range;
  const [grain, ...finer] = grains;
  if (!grain) return [{ ...range, grain: null }];
  const first = from && new Date(Math.ceil(from.getTime() / grain.ms) * grain.ms);
  const end = before && new Date(Math.floor(before.getTime() / grain.ms) * grain.ms);
  if (first && end && first.getTime() >= end.getTime()) return splitRange(range, finer);
  const pieces: RangePiece[] = [{ from: first, before: end, grain }];
  if (from && first && from.getTime() < first.getTime())
    pieces.push(...splitRange({ from, before: first }, finer));
  if (before && end && end.getTime() < before.getTime())
    pieces.push(...splitRange({ from: end, before }, finer));
  return pieces;
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
export type CountLabel = RollupLabel | 'day';

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
 * What makes the SQL of a count under a date range (db/compiled-shapes.ts): the labels it
 * groups by, the label filters it has and the pieces of its range (splitRange): per piece, the
 * rollup table it reads (null: the reports) and which bounds it has. The values — the project,
 * the labels', the pieces' bounds (`from0`, `before0`, …) — are its CountParams.
 */
export interface CountShape {
  dialect: Dialect;
  labels: readonly CountLabel[];
  tool: boolean;
  source: boolean;
  pieces: { table: string | null; from: boolean; before: boolean }[];
}

export interface CountParams extends Record<string, unknown> {
  projectId: string;
  toolName: string | null;
  source: string | null;
}

/** The shape and values of a count of the reports under the filters (outcome left out). */
export function countOf(
  dialect: Dialect,
  projectId: string,
  filters: Omit<ReportFilters, 'outcome'>,
  labels: readonly CountLabel[],
): { shape: CountShape; params: CountParams } {
  // The rollup labels the count needs: those it groups by and those it filters on.
  const needed: RollupLabel[] = [];
  if (labels.includes('tool_name') || filters.toolName !== undefined) needed.push('tool_name');
  if (labels.includes('source') || filters.source !== undefined) needed.push('source');
  const params: CountParams = {
    projectId,
    toolName: filters.toolName ?? null,
    source: filters.source ?? null,
  };
  // Per day: no bucket coarser than a day (a week cannot say which of its days counted what).
  const grains = grainsFor(needed).filter((g) => !labels.includes('day') || g.ms <= DAY_MS);
  const pieces = splitRange(filters, grains).map((piece, i) => {
    params[`from${i}`] = piece.from?.toISOString() ?? null;
    params[`before${i}`] = piece.before?.toISOString() ?? null;
    return { table: piece.grain?.table ?? null, from: !!piece.from, before: !!piece.before };
  });
  const shape = {
    dialect,
    labels,
    tool: filters.toolName !== undefined,
    source: filters.source !== undefined,
    pieces,
  };
  return { shape, params };
}

const GRAIN_OF_TABLE = new Map<string, RollupGrain>(
  (ROLLUP_GRAINS as readonly RollupGrain[]).map((grain) => [grain.table, grain]),
);

/**
 * The reports a count counts (countOf), as rows of (tool_name, source, outcome, day, count) to
 * group and sum: the rollup rows of the range's whole days and hours (splitRange) and, UNION
 * ALL, one row per report of its partial hours. Alias it and select from it
 * (`db.selectFrom(countedRows(db, shape, params).as('counted'))`); it places the params as
 * bound values only, so a statement around it may be compiled once per shape.
 *
 * Only the labels asked for are read; the others are ''. That matters for the reports: their
 * time index carries `outcome` but not the labels, so asking for a label there would look up
 * each report's row. Each part seeks (report-query-plans.test.ts): the rollups on their
 * primary key's (project_id, bucket) range, the reports on a filter's index and the time
 * range. No part groups, so SQLite's planner is not tempted to walk an index for its order
 * (report.repository.ts, groupKey); the outer query groups the few rows the parts yield.
 */
export function countedRows(
  db: Kysely<DB>,
  shape: CountShape,
  p: CountParams,
): SelectQueryBuilder<DB, never, CountedRow> {
  const asked = (label: CountLabel) => shape.labels.includes(label);
  const parts = shape.pieces.map((piece, i) => {
    // A rollup table (it has the columns of report_rollups but the bucket's and the labels it
    // does not keep; grainsFor chose one with those asked) or the reports themselves. Each
    // column is named with its table, so query plans name it too.
    const grain = piece.table === null ? undefined : GRAIN_OF_TABLE.get(piece.table);
    const table = grain?.table ?? 'reports';
    const column = (name: string) => sql.ref(`${table}.${name}`);
    const time = `${table}.${grain?.column ?? 'created_at'}`;
    // A report's absent label is NULL, a rollup's '' (its key columns cannot be NULL).
    const label = (name: RollupLabel) =>
      grain ? sql<string>`${column(name)}` : sql<string>`coalesce(${column(name)}, '')`;
    let q = db
      .selectFrom(table as 'report_rollups')
      .select([
        asked('tool_name') ? label('tool_name').as('tool_name') : empty('tool_name'),
        asked('source') ? label('source').as('source') : empty('source'),
        sql<string>`${column('outcome')}`.as('outcome'),
        asked('day') ? utcDayOf(shape.dialect, time).as('day') : empty('day'),
        (grain ? sql<number | string>`${column('count')}` : sql<number | string>`1`).as('count'),
      ])
      .where(column('project_id'), '=', p.projectId);
    if (shape.tool) q = q.where(column('tool_name'), '=', p.toolName);
    if (shape.source) q = q.where(column('source'), '=', p.source);
    if (piece.from) q = q.where(sql.ref(time), '>=', p[`from${i}`] as string);
    if (piece.before) q = q.where(sql.ref(time), '<', p[`before${i}`] as string);
    return q as unknown as SelectQueryBuilder<DB, never, CountedRow>;
  });
  const [first, ...rest] = parts;
  // splitRange always yields a piece.
  if (!first) throw new Error('countedRows: a date range without pieces');
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
  const { shape, params } = countOf(dialect, projectId, filters, []);
  const { rows } = await db.executeQuery(outcomesInRange(db, shape, params));
  return new Map(rows.map((row) => [row.outcome, Number(row.n)]));
}

/** Compiled once per shape: every reports list under a date range asks it. */
const outcomesInRange = compiledShapes((db: Kysely<DB>, shape: CountShape, p: CountParams) =>
  db
    .selectFrom(countedRows(db, shape, p).as('counted'))
    .select(['outcome', sql<number | string>`sum(count)`.as('n')])
    .groupBy('outcome'),
);

/**
 * Reports per project and outcome since a time, for every project of the account (the
 * dashboard's project list), from the rollups with exact edges as countedRows: one query.
 */
export async function countOutcomesByProjectSince(
  db: Kysely<DB>,
  accountId: string,
  since: Date,
): Promise<{ projectId: string; outcome: string; n: number }[]> {
  type Row = { project_id: string; outcome: string; count: number | string };
  const parts: SelectQueryBuilder<DB, never, Row>[] = [];
  for (const piece of splitRange({ from: since }, grainsFor([]))) {
    const { grain } = piece;
    if (grain) {
      const column = (name: string) => sql.ref(`${grain.table}.${name}`);
      let q = db
        .selectFrom(grain.table as 'report_rollups')
        .innerJoin('projects', 'projects.id', column('project_id') as never)
        .select([
          sql<string>`${column('project_id')}`.as('project_id'),
          sql<string>`${column('outcome')}`.as('outcome'),
          sql<number | string>`${column('count')}`.as('count'),
        ])
        .where('projects.account_id', '=', accountId);
      const bucket = column(grain.column);
      if (piece.from) q = q.where(bucket, '>=', piece.from.toISOString());
      if (piece.before) q = q.where(bucket, '<', piece.before.toISOString());
      parts.push(q as unknown as SelectQueryBuilder<DB, never, Row>);
      continue;
    }
    let q = db
      .selectFrom('reports')
      .innerJoin('projects', 'projects.id', 'reports.project_id')
      .select([
        sql<string>`reports.project_id`.as('project_id'),
        sql<string>`reports.outcome`.as('outcome'),
        sql<number | string>`1`.as('count'),
      ])
      .where('projects.account_id', '=', accountId);
    if (piece.from) q = q.where('reports.created_at', '>=', piece.from.toISOString());
    if (piece.before) q = q.where('reports.created_at', '<', piece.before.toISOString());
    parts.push(q as unknown as SelectQueryBuilder<DB, never, Row>);
  }
  const [first, ...rest] = parts;
  if (!first) return [];
  const rows = await db
    .selectFrom(rest.reduce((union, part) => union.unionAll(part), first).as('counted'))
    .select(['project_id', 'outcome', sql<number | string>`sum(count)`.as('n')])
    .groupBy(['project_id', 'outcome'])
    .execute();
  return rows.map((row) => ({ projectId: row.project_id, outcome: row.outcome, n: Number(row.n) }));
}
