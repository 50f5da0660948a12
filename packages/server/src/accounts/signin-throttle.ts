/**
 * Slows down password guessing: failed sign-ins are counted per email+IP and per IP, in
 * memory. The counters are per process (a restart or a second instance starts afresh), which
 * bounds guessing to a few tries per minute per process — enough against online guessing,
 * without a shared store.
 */
export interface ThrottleOptions {
  /** Failures allowed within the window before sign-in is refused for a while. */
  freeFailures: number;
  windowMs: number;
  /** The first lockout; each further failure doubles it, up to the window. */
  baseDelayMs: number;
}

interface Entry {
  failures: number;
  firstAt: number;
  lastAt: number;
}

const MAX_ENTRIES = 50_000;

export class FailureCounter {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: ThrottleOptions) {}

  /** Milliseconds the key must still wait before its next try; 0 = may try now. */
  waitMs(key: string, now = Date.now()): number {
    const entry = this.live(key, now);
    if (!entry || entry.failures < this.options.freeFailures) return 0;
    const over = entry.failures - this.options.freeFailures;
    const delay = Math.min(this.options.baseDelayMs * 2 ** over, this.options.windowMs);
    return Math.max(0, entry.lastAt + delay - now);
  }

  fail(key: string, now = Date.now()): void {
    const entry = this.live(key, now);
    if (entry) {
      entry.failures += 1;
      entry.lastAt = now;
      return;
    }
    if (this.entries.size >= MAX_ENTRIES) this.prune(now);
    this.entries.set(key, { failures: 1, firstAt: now, lastAt: now });
  }

  reset(key: string): void {
    this.entries.delete(key);
  }

  private live(key: string, now: number): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && now - entry.lastAt > this.options.windowMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private prune(now: number): void {
    for (const [key, entry] of this.entries) {
      if (now - entry.lastAt > this.options.windowMs) this.entries.delete(key);
    }
    // Still full (an attack from many addresses): forget the oldest half rather than grow.
    if (this.entries.size >= MAX_ENTRIES) {
      let drop = this.entries.size / 2;
      for (const key of this.entries.keys()) {
        if (drop-- <= 0) break;
        this.entries.delete(key);
      }
    }
  }
}

export class SigninThrottle {
  /** 5 failures in 15 minutes for one email from one address, then 30 s, 60 s, … */
  private readonly perAccount = new FailureCounter({
    freeFailures: 5,
    windowMs: 15 * 60_000,
    baseDelayMs: 30_000,
  });
  /** One address trying many emails (password spraying). */
  private readonly perAddress = new FailureCounter({
    freeFailures: 50,
    windowMs: 15 * 60_000,
    baseDelayMs: 60_000,
  });

  waitMs(email: string, ip: string): number {
    return Math.max(this.perAccount.waitMs(`${email}\n${ip}`), this.perAddress.waitMs(ip));
  }

  fail(email: string, ip: string): void {
    this.perAccount.fail(`${email}\n${ip}`);
    this.perAddress.fail(ip);
  }

  succeed(email: string, ip: string): void {
    this.perAccount.reset(`${email}\n${ip}`);
  }
}
