/**
 * Durations and UTC calendar arithmetic, once for the whole server: the quota's months, the
 * address share's days, the rollups' buckets, the dashboard's day ranges. Every calendar here is
 * UTC. Free of imports: the SQLite writer's worker thread loads it.
 */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
export const WEEK_MS = 7 * DAY_MS;

/** The UTC day of an instant as `YYYY-MM-DD`. */
export function utcDay(at: Date | number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** The UTC month of an instant as `YYYY-MM`. */
export function utcMonth(at: Date | number): string {
  return new Date(at).toISOString().slice(0, 7);
}

/** 00:00 UTC of the instant's day, in epoch milliseconds. */
export function startOfUtcDay(at: Date | number): number {
  const date = new Date(at);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
}

/** 00:00 UTC of the day after the instant's. */
export function startOfNextUtcDay(at: Date | number): Date {
  return new Date(startOfUtcDay(at) + DAY_MS);
}

/** 00:00 UTC of the first day of the instant's month. */
export function startOfUtcMonth(at: Date | number): Date {
  const date = new Date(at);
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1));
}

/** 00:00 UTC of the first day of the month after the instant's. */
export function startOfNextUtcMonth(at: Date | number): Date {
  const date = new Date(at);
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1));
}
