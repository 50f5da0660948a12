import { type Kysely, sql } from 'kysely';
import { compiledShapes } from '../db/compiled-shapes.js';
import type { DB } from '../db/schema.js';
import { toDate } from '../db/schema.js';
import { DAY_MS, HOUR_MS } from '../time/utc-time.js';
import type { PageStart, ReportFilters } from './report.repository.js';
import type { RollupGrain, RollupLabel } from './report-rollup-key.js';
import { grainsFor } from './report-rollups.repository.js';

/**
 * From this many rows to skip, a page by number first skips whole days and hours by their
 * rollup counts; below it, walking the index entries costs less than the two rollup reads. A
 * page of 100 at page 500 walked 49,900 entries (p99 47 ms on SQLite, 75 ms on PostgreSQL at
 * 1M reports, 95 ms at 10M). Under a tool or source the rollups hold a row per label
 * combination and bucket (the daily tools table ~13,500 rows for 90 days of 30 tools), which a
 * filter on the label reads through, and the label's own index walks fast: from further down.
 */
export const DEEP_PAGE_OFFSET: Readonly<{ unlabelled: number; labelled: number }> = {
  unlabelled: 1000,
  labelled: 10_000,
};

/**
 * Where a deep page by number starts, as a bound and a shorter offset. The matching reports are
 * counted newest first by whole days, then by whole hours within the day the offset lands in,
 * from the rollups (migrations 0010, 0015: written in the transaction that stores the reports
 * they count, so exact); the page is read below the newest hours that hold no more than the
 * offset, skipping only what is left, at most an hour's reports. So a page costs two reads of
 * O(days + 24) rollup rows, whatever its depth. The same rows come back as with the whole
 * offset: every matching report at or after the bound is newer than every one before it.
 *
 * Only where the rollups hold the count exactly: no `to` (its partial hour is not a whole
 * bucket), no issue (not a rollup label), no empty label (stored as absent). A `from` keeps to
 * the whole buckets at or after it. Otherwise the page is left as it was.
 */
export async function seekDeepPage(
  db: Kysely<DB>,
  projectId: string,
  filters: ReportFilters,
  page: PageStart,
  minOffset = DEEP_PAGE_OFFSET,
): Promise<{ filters: ReportFilters; page: PageStart }> {
  const unchanged = { filters, page };
  if (!('offset' in page)) return unchanged;
  if (filters.before !== undefined || filters.issueId !== undefined) return unchanged;
  if (filters.toolName === '' || filters.source === '') return unchanged;
  const labels: RollupLabel[] = [];
  if (filters.toolName !== undefined) labels.push('tool_name');
  if (filters.source !== undefined) labels.push('source');
  if (page.offset < (labels.length > 0 ? minOffset.labelled : minOffset.unlabelled))
    return unchanged;
  const grains = grainsFor(labels);
  const days = grains.find((g) => g.ms === DAY_MS);
  const hours = grains.find((g) => g.ms === HOUR_MS);
  if (!days || !hours) return unchanged;

  const firstWhole = (ms: number) =>
    filters.from && new Date(Math.ceil(filters.from.getTime() / ms) * ms);
  const day = await landing(
    db,
    projectId,
    filters,
    days,
    { from: firstWhole(DAY_MS) },
    page.offset,
  );
  if (!day) return unchanged;
  const dayEnd = new Date(day.bucket.getTime() + DAY_MS);
  const hourFrom = firstWhole(HOUR_MS);
  const hour = await landing(
    db,
    projectId,
    filters,
    hours,
    {
      from: hourFrom && hourFrom > day.bucket ? hourFrom : day.bucket,
      before: dayEnd,
    },
    page.offset - day.newer,
  );
  // The hour the page begins in, and the matching reports in the hours after it; without one
  // (the day's whole hours hold no more than what is left), the whole days after the day.
  const before = hour ? new Date(hour.bucket.getTime() + HOUR_MS) : dayEnd;
  const skipped = day.newer + (hour?.newer ?? 0);
  return { filters: { ...filters, before }, page: { offset: page.offset - skipped } };
}

/**
 * The bucket of `grain` in [range.from, range.before) in which the matching report at `offset`
 * (newest first) lies, and how many matching reports the buckets after it hold; null when
 * the buckets hold no more than `offset`. One seek on the table's key (project_id, bucket, …),
 * newest first a running total of each bucket's count. A query of the builder, so it is a
 * report read like the page (db/read-routing.ts: the writer's barrier first, and on SQLite a
 * reader process), compiled once per shape.
 */
async function landing(
  db: Kysely<DB>,
  projectId: string,
  filters: ReportFilters,
  grain: RollupGrain,
  range: { from?: Date; before?: Date },
  offset: number,
): Promise<{ bucket: Date; newer: number } | null> {
  const shape: LandingShape = {
    table: grain.table,
    column: grain.column,
    tool: filters.toolName !== undefined,
    source: filters.source !== undefined,
    outcome: filters.outcome !== undefined,
    from: range.from !== undefined,
    before: range.before !== undefined,
  };
  const params = {
    projectId,
    toolName: filters.toolName ?? null,
    source: filters.source ?? null,
    outcome: filters.outcome ?? null,
    from: range.from?.toISOString() ?? null,
    before: range.before?.toISOString() ?? null,
    offset,
  };
  const { rows } = await db.executeQuery(landingQuery(db, shape, params));
  const row = rows[0];
  return row ? { bucket: toDate(row.bucket), newer: Number(row.newer) } : null;
}

interface LandingShape {
  table: string;
  column: string;
  tool: boolean;
  source: boolean;
  outcome: boolean;
  from: boolean;
  before: boolean;
}

interface LandingParams extends Record<string, unknown> {
  projectId: string;
  toolName: string | null;
  source: string | null;
  outcome: string | null;
  from: string | null;
  before: string | null;
  offset: number;
}

const landingQuery = compiledShapes((db: Kysely<DB>, shape: LandingShape, p: LandingParams) => {
  const bucket = sql.ref(`${shape.table}.${shape.column}`);
  let buckets = db
    .selectFrom(shape.table as 'report_rollups')
    .select([sql<string | Date>`${bucket}`.as('bucket'), sql<number | string>`sum(count)`.as('n')])
    .where('project_id', '=', p.projectId);
  if (shape.tool) buckets = buckets.where('tool_name', '=', p.toolName);
  if (shape.source) buckets = buckets.where('source', '=', p.source);
  if (shape.outcome) buckets = buckets.where('outcome', '=', p.outcome as string);
  if (shape.from) buckets = buckets.where(bucket, '>=', p.from);
  if (shape.before) buckets = buckets.where(bucket, '<', p.before);
  const walked = db
    .selectFrom(buckets.groupBy(bucket).as('buckets'))
    .select([
      'bucket',
      'n',
      sql<number | string>`sum(n) over (order by bucket desc rows unbounded preceding)`.as('total'),
    ]);
  return db
    .selectFrom(walked.as('walked'))
    .select(['bucket', sql<number | string>`total - n`.as('newer')])
    .where('total', '>', p.offset)
    .orderBy('bucket', 'desc')
    .limit(1);
});
