/** Bounds of the retry loop: how many extra attempts, and by when everything must be over. */
export interface RetryBounds {
  retries: number;
  deadline: number;
}

const BASE_DELAY_MS = 200;
const MAX_DELAY_MS = 5_000;

/**
 * Exponential backoff with "equal jitter": half of the step is fixed, half random, so
 * reporters that failed together (a Debrief restart) do not all come back in the same instant.
 */
export function backoffDelay(retryIndex: number, random: () => number = Math.random): number {
  const step = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** retryIndex);
  return Math.round(step / 2 + random() * (step / 2));
}

/** Statuses worth another attempt: the server or a proxy in front of it had a bad moment. */
export function isRetryableStatus(status: number): boolean {
  return status === 500 || status === 502 || status === 503 || status === 504;
}

/** `Retry-After` in seconds (delta-seconds or an HTTP date), or undefined when absent/invalid. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/** True when waiting `delayMs` still leaves time for a meaningful attempt before the deadline. */
export function fitsBefore(deadline: number, delayMs: number, now = Date.now()): boolean {
  return now + delayMs < deadline - MIN_ATTEMPT_MS;
}

/** An attempt with less time than this left would time out before most servers can answer. */
const MIN_ATTEMPT_MS = 50;

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
