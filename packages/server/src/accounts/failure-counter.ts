import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import {
  clearFailures,
  countFailure,
  type FailurePolicy,
  lockedUntil,
  pruneFailures,
} from './auth-failure.repository.js';

export type { FailurePolicy } from './auth-failure.repository.js';

/** How often one process deletes the counters whose window has passed. */
const PRUNE_EVERY_MS = 60_000;

/**
 * Failures per key (an email and address, or an address), kept in the database so that every
 * instance on it shares them (migration 0012): a second `debrief serve` behind the same load
 * balancer does not double the guesses an attacker gets. Keys are stored as SHA-256.
 *
 * Why not `rate-limiter-flexible` (whose SQLite and PostgreSQL stores were weighed): its
 * counters are fixed windows of points with a fixed block duration, not this doubling
 * lockout; its stores create their own tables outside the migrations and talk to
 * better-sqlite3 or pg directly, beside Kysely and its transactions. The policy is one upsert
 * (auth-failure.repository.ts), smaller than the adapter it would take.
 *
 * Memory stays bounded on both sides: nothing is kept in the process, and rows whose window
 * has passed are deleted at most once a minute per process (one indexed delete). Each counted
 * failure costs a bounded password hash first, so the table grows at most at the hasher's pace.
 */
export class FailureCounter {
  private nextPrune = 0;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly scope: string,
    private readonly policy: FailurePolicy,
  ) {}

  /**
   * Counts a try of `key` as a failure unless the key is locked. Returns 0 when counted (the
   * try may go ahead), else the milliseconds until the lockout ends (at least 1).
   */
  async attempt(key: string, now = Date.now()): Promise<number> {
    const hashed = hashKey(key);
    if (now >= this.nextPrune) {
      this.nextPrune = now + PRUNE_EVERY_MS;
      await pruneFailures(this.db, now);
    }
    if (await countFailure(this.db, this.scope, hashed, this.policy, now)) return 0;
    return Math.max(1, (await lockedUntil(this.db, this.scope, hashed)) - now);
  }

  async reset(key: string): Promise<void> {
    await clearFailures(this.db, this.scope, hashKey(key));
  }
}

function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
