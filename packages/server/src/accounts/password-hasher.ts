import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import pLimit from 'p-limit';
import { ApiError } from '../errors/api-error.js';
import { hashPassword, verifyPassword } from './password.js';

/**
 * Every password hash of the server goes through here, so their number at once is bounded.
 * One scrypt hash holds 128 MiB and a core for ~100–300 ms on libuv's thread pool; a flood of
 * sign-ups or sign-ins that ran them all at once would take the memory and the cores that
 * ingest needs. Past `concurrency` running hashes, callers wait in a
 * queue of `maxWaiting`; beyond it they get 503 `service_unavailable` with `Retry-After` at
 * once — the server is busy, not the caller at fault, and a short wait cures it.
 *
 * p-limit (sindresorhus, ~800 M downloads a month) does the queueing and exposes the running
 * and waiting counts the bound needs; a hand-written semaphore would be as short but would be
 * one more piece of concurrency code to get right and test.
 */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** Checks `password` against `stored`; null stored = against a dummy hash, same time. */
  verify(password: string, stored: string | null): Promise<boolean>;
  /** Hashes running now, and the most that ever ran at once (tests check the bound). */
  readonly stats: { running: number; waiting: number; peak: number; refused: number };
  readonly concurrency: number;
}

export interface PasswordHasherOptions {
  /** Hashes at once; default half the cores (at least 1, at most 4). */
  concurrency?: number;
  /** Hashes waiting for a slot before 503; default 8 per slot. */
  maxWaiting?: number;
  /**
   * scrypt's cost N for new hashes; default OWASP's 2^17. Only the test harness lowers it: a
   * hash then takes milliseconds instead of seconds on a loaded 2-core machine. Verifying
   * reads N from the stored hash either way.
   */
  scryptN?: number;
}

/** Half the cores: the other half stays with the event loop and the report writer. */
export function defaultHashConcurrency(): number {
  return Math.max(1, Math.min(4, Math.floor(availableParallelism() / 2)));
}

const RETRY_AFTER_SECONDS = 2;

export function createPasswordHasher(options: PasswordHasherOptions = {}): PasswordHasher {
  const concurrency = options.concurrency ?? defaultHashConcurrency();
  const maxWaiting = options.maxWaiting ?? 8 * concurrency;
  const limit = pLimit(concurrency);
  const stats = { running: 0, waiting: 0, peak: 0, refused: 0 };
  let dummyHash: string | null = null;

  async function bounded<T>(work: () => Promise<T>): Promise<T> {
    // Checked and queued in one synchronous step: no other request can slip in between.
    if (limit.activeCount + limit.pendingCount >= concurrency + maxWaiting) {
      stats.refused += 1;
      throw new ApiError(
        'service_unavailable',
        `The server is checking too many passwords at once. Nothing was changed; retry in ${RETRY_AFTER_SECONDS} seconds.`,
        { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } },
      );
    }
    stats.waiting += 1;
    return limit(async () => {
      stats.waiting -= 1;
      stats.running += 1;
      stats.peak = Math.max(stats.peak, stats.running);
      try {
        return await work();
      } finally {
        stats.running -= 1;
      }
    });
  }

  return {
    concurrency,
    stats,
    hash: (password) => bounded(() => hashPassword(password, options.scryptN)),
    verify: (password, stored) =>
      bounded(async () => {
        if (stored !== null) return verifyPassword(password, stored);
        // Made once, inside the slot, so even the first unknown email costs one bounded slot.
        dummyHash ??= await hashPassword(randomBytes(16).toString('hex'), options.scryptN);
        await verifyPassword(password, dummyHash);
        return false;
      }),
  };
}
