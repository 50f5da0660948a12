import { OUTCOMES, type Outcome, type ReportStats } from '@debrief/protocol';

export function emptyStats(): ReportStats {
  return { total: 0, success: 0, failure: 0, confusing: 0, gave_up: 0, request: 0 };
}

export function isOutcome(value: string): value is Outcome {
  return (OUTCOMES as readonly string[]).includes(value);
}

/** Adds `n` reports of an outcome (as read from the database) to the stats and their total. */
export function addToStats(stats: ReportStats, outcome: string, n: number): void {
  if (!isOutcome(outcome)) return;
  stats[outcome] += n;
  stats.total += n;
}
