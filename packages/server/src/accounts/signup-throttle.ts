import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { FailureCounter } from './failure-counter.js';

/**
 * Sign-ups per client address (`request.ip`, so `TRUST_PROXY` decides which address that is).
 * Each sign-up costs a 128 MiB password hash and mints a free tier; one address flooding them
 * cut ingest by 74 %. It reuses the sign-in throttle's counter: every
 * sign-up that reaches the hash is counted as a "failure", so `perHour` go through freely and
 * then each further one must wait 1 min, 2 min, 4 min … up to an hour. In the database, shared
 * by every instance, like the sign-in counters.
 */
export class SignupThrottle {
  private readonly perAddress: FailureCounter;

  constructor(db: Kysely<DB>, perHour: number) {
    this.perAddress = new FailureCounter(db, 'signup_address', {
      freeFailures: perHour,
      windowMs: 60 * 60_000,
      baseDelayMs: 60_000,
    });
  }

  /** Counts a sign-up from this address; returns 0 when it may go ahead, else ms to wait. */
  attempt(ip: string, now = Date.now()): Promise<number> {
    return this.perAddress.attempt(ip, now);
  }
}
