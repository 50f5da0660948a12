/**
 * The rollups (migration 0010): their grains (hourly and daily tables) and which row of each a
 * report adds to (rollupKey). The write path adds a batch up per row and upserts each row once,
 * in the transaction that stores the reports (write-path/plan-batch.ts, REPORT_COUNTERS); the
 * reads split a range by the grains (report-rollups.repository.ts). Free of imports: the SQLite
 * writer's worker thread loads it.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The rollup hour of a report: the start of its UTC hour. */
export function rollupHour(createdAt: Date): Date {
  return new Date(Math.floor(createdAt.getTime() / HOUR_MS) * HOUR_MS);
}

export interface RollupGrain {
  /** Its table, and the column holding the start of the bucket (UTC). */
  table: 'report_rollups' | 'report_rollups_daily';
  column: 'hour' | 'day';
  ms: number;
}

/**
 * Hours answer any range to the hour; days make a long range (a month's timeseries) cost 24
 * times fewer rows: its whole days from the daily table, the hours around them from the hourly.
 */
export const ROLLUP_GRAINS: readonly RollupGrain[] = [
  {
    table: 'report_rollups',
    column: 'hour',
    ms: HOUR_MS,
  },
  {
    table: 'report_rollups_daily',
    column: 'day',
    ms: DAY_MS,
  },
];

/**
 * The row of a grain a report counts in, as its key columns: project,
 * bucket start (ISO text, as `created_at` is bound), tool, source ('' = absent, as in
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
): [string, string, string, string, string] {
  return [
    report.projectId,
    bucketText(grain, report.createdAt.getTime()),
    report.toolName ?? '',
    report.source ?? '',
    report.outcome,
  ];
}

/**
 * The ISO text of the bucket holding `ms`. Consecutive reports mostly share their bucket, so
 * each grain remembers its last one: formatting a Date is most of what a key costs (~2 µs).
 */
const lastBucket = new Map<RollupGrain, { start: number; text: string }>();
function bucketText(grain: RollupGrain, ms: number): string {
  const start = Math.floor(ms / grain.ms) * grain.ms;
  const last = lastBucket.get(grain);
  if (last?.start === start) return last.text;
  const text = new Date(start).toISOString();
  lastBucket.set(grain, { start, text });
  return text;
}
