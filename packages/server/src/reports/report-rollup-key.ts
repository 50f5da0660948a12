/**
 * The rollups (migrations 0010, 0015 and 0016): their tables, each a time grain and the labels it
 * keeps, and which row of each a report adds to (rollupKey). The write path adds a batch up per
 * row and upserts each row once, in the transaction that stores the reports
 * (write-path/plan-batch.ts, REPORT_COUNTERS); the reads split a range by the grains and read
 * each piece from the smallest table that holds what they ask (report-rollups.repository.ts).
 * Free of imports but time/utc-time.ts: the SQLite writer's worker thread loads it.
 * Weeks start on Thursdays, 00:00 UTC: whole multiples of seven days since the epoch.
 */
import { DAY_MS, HOUR_MS, MINUTE_MS, WEEK_MS } from '../time/utc-time.js';

/** A label a rollup may keep beside the outcome (every rollup keeps the outcome). */
export type RollupLabel = 'tool_name' | 'source';

export interface RollupGrain {
  /** Its table, and the column holding the start of the bucket (UTC). */
  table: RollupTable;
  column: 'minute' | 'hour' | 'day' | 'week';
  ms: number;
  /** The labels its rows are kept by: a row per (project, bucket, these labels, outcome). */
  labels: readonly RollupLabel[];
  /** Read only by counts that need exactly its labels (report-rollups.repository.ts). */
  exact?: boolean;
}

export type RollupTable = (typeof ROLLUP_GRAINS)[number]['table'];

const BOTH: readonly RollupLabel[] = ['tool_name', 'source'];

/**
 * Hours answer any range to the hour; days make a long range (a month's timeseries) cost 24
 * times fewer rows: its whole days from a daily table, the hours around them from an hourly one.
 * The tables with fewer labels answer what does not ask for the others in far fewer rows: the
 * full daily table holds a row per day and label combination in use (~750 a day for 30 tools,
 * 5 sources, 5 outcomes), so a 30-day timeseries summed ~23,000 of them (9 ms of SQLite), where
 * the outcomes-only table holds 155. Minutes count a busy project's last minutes, which would
 * otherwise fall between hours and be counted from the reports (166,000 of them for "the last
 * 10 minutes" at a million reports an hour); kept by outcome only, as that is what such ranges ask.
 * Weeks (migration 0016) serve the dashboard's tools table, the one count that groups a long
 * range by a label: a month of 30 tools is ~4,500 daily rows, ~1,000 as whole weeks and the
 * days around them. By tool only, and read only by counts by tool (`exact`): a count of
 * outcomes reads fewer rows from the daily outcomes than a week of tools holds.
 */
export const ROLLUP_GRAINS = [
  { table: 'report_rollups', column: 'hour', ms: HOUR_MS, labels: BOTH },
  { table: 'report_rollups_daily', column: 'day', ms: DAY_MS, labels: BOTH },
  { table: 'report_rollups_day_tools', column: 'day', ms: DAY_MS, labels: ['tool_name'] },
  { table: 'report_rollups_day_sources', column: 'day', ms: DAY_MS, labels: ['source'] },
  { table: 'report_rollups_day_outcomes', column: 'day', ms: DAY_MS, labels: [] },
  { table: 'report_rollups_hour_outcomes', column: 'hour', ms: HOUR_MS, labels: [] },
  { table: 'report_rollups_minute_outcomes', column: 'minute', ms: MINUTE_MS, labels: [] },
  {
    table: 'report_rollups_week_tools',
    column: 'week',
    ms: WEEK_MS,
    labels: ['tool_name'],
    exact: true,
  },
] as const satisfies readonly (Omit<RollupGrain, 'table'> & { table: string })[];

/** The key columns of a grain's table, in key order (its primary key). */
export function rollupColumns(grain: RollupGrain): string[] {
  return ['project_id', grain.column, ...grain.labels, 'outcome'];
}

/**
 * The row of a grain a report counts in, as its key columns (rollupColumns): project, bucket
 * start (ISO text, as `created_at` is bound), the grain's labels ('' = absent, as in
 * report_counts), outcome.
 */
export function rollupKey(
  grain: RollupGrain,
  report: {
    projectId: string;
    createdAt: Date;
    toolName: string | null;
    source: string | null;
    outcome: string;
  },
): string[] {
  const key = [report.projectId, bucketText(grain.ms, report.createdAt.getTime())];
  for (const label of grain.labels)
    key.push((label === 'tool_name' ? report.toolName : report.source) ?? '');
  key.push(report.outcome);
  return key;
}

/**
 * The ISO text of the bucket holding `ms`. Consecutive reports mostly share their bucket, so
 * each bucket size remembers its last one: formatting a Date is most of what a key costs (~2 µs).
 */
const lastBucket = new Map<number, { start: number; text: string }>();
function bucketText(size: number, ms: number): string {
  const start = Math.floor(ms / size) * size;
  const last = lastBucket.get(size);
  if (last?.start === start) return last.text;
  const text = new Date(start).toISOString();
  lastBucket.set(size, { start, text });
  return text;
}
