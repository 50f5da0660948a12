import { FailureCounter } from './signin-throttle.js';

/**
 * Sign-ups per client address (`request.ip`, so `TRUST_PROXY` decides which address that is).
 * Each sign-up costs a 128 MiB password hash and mints a free tier; one address flooding them
 * cut ingest by 74 % (issue 16, finding 7). It reuses the sign-in throttle's counter: every
 * sign-up that reaches the hash is counted as a "failure", so `perHour` go through freely and
 * then each further one must wait 1 min, 2 min, 4 min … up to an hour. In memory, per process,
 * like the sign-in counters.
 */
export class SignupThrottle {
  private readonly perAddress: FailureCounter;

  constructor(perHour: number) {
    this.perAddress = new FailureCounter({
      freeFailures: perHour,
      windowMs: 60 * 60_000,
      baseDelayMs: 60_000,
    });
  }

  /** Milliseconds this address must still wait before its next sign-up; 0 = may go now. */
  waitMs(ip: string): number {
    return this.perAddress.waitMs(ip);
  }

  count(ip: string): void {
    this.perAddress.fail(ip);
  }
}
