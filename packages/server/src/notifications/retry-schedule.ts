import { HOUR_MS } from '../time/utc-time.js';

/** The Standard Webhooks schedule's waits after the first attempt (NOTIFY_RETRY_SCHEDULE's default). */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * HOUR_MS,
  5 * HOUR_MS,
  10 * HOUR_MS,
  14 * HOUR_MS,
  20 * HOUR_MS,
  24 * HOUR_MS,
];
/** Up to this share of a wait is added at random, so retries of many messages spread out. */
const JITTER = 0.1;
/** A `Retry-After` longer than this is taken as this. */
const MAX_RETRY_AFTER_MS = 24 * HOUR_MS;

/**
 * When the attempt after `attemptsMade` failed ones is due, or null when the schedule is
 * spent. A receiver's `Retry-After` is honoured when it asks for longer than the schedule.
 */
export function nextAttemptAt(
  schedule: readonly number[],
  attemptsMade: number,
  now: number,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number | null {
  const wait = schedule[attemptsMade - 1];
  if (wait === undefined) return null;
  const jittered = wait + Math.round(wait * JITTER * random());
  return now + Math.max(jittered, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
}
