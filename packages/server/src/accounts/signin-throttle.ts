import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { FailureCounter } from './failure-counter.js';

/**
 * Slows down password guessing: failed sign-ins are counted per email+address and per
 * address, in the database (accounts/failure-counter.ts), so every instance on one database
 * shares the counts and a restart does not forget them.
 */
export class SigninThrottle {
  /** 5 failures in 15 minutes for one email from one address, then 30 s, 60 s, … */
  private readonly perAccount: FailureCounter;
  /** One address trying many emails (password spraying). */
  private readonly perAddress: FailureCounter;

  constructor(db: Kysely<DB>) {
    this.perAccount = new FailureCounter(db, 'signin_account', {
      freeFailures: 5,
      windowMs: 15 * 60_000,
      baseDelayMs: 30_000,
    });
    this.perAddress = new FailureCounter(db, 'signin_address', {
      freeFailures: 50,
      windowMs: 15 * 60_000,
      baseDelayMs: 60_000,
    });
  }

  /**
   * Counts a sign-in try as a failure (before the slow password check, so a burst of parallel
   * guesses counts in full; `succeed` clears it). Returns 0 when the try may go ahead, else the
   * milliseconds to wait. The email's counter is asked first: when it refuses, the address's
   * counter is left as it was; when the address's refuses, the email's has counted the try.
   */
  async attempt(email: string, ip: string, now = Date.now()): Promise<number> {
    const account = await this.perAccount.attempt(`${email}\n${ip}`, now);
    if (account > 0) return account;
    return this.perAddress.attempt(ip, now);
  }

  async succeed(email: string, ip: string): Promise<void> {
    await this.perAccount.reset(`${email}\n${ip}`);
  }
}
