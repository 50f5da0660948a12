/** A token bucket's policy: `rate` tokens a second, holding at most `burst`. */
export interface BucketPolicy {
  rate: number;
  burst: number;
}

interface Bucket {
  tokens: number;
  /** When `tokens` was counted (ms). */
  at: number;
  /** When the bucket is full again if nothing is taken (ms): then it can be forgotten. */
  fullAt: number;
}

/**
 * Token buckets by key, in memory: synchronous, so the ingest hot path checks them without a
 * promise (submit-report.route.ts). A bucket that has refilled is the same as no bucket, so
 * `sweep` forgets full ones: memory holds only the keys seen within a refill time (burst /
 * rate: 4 to 6 s by default), whatever the number of clients over a day.
 *
 * Written here rather than taken from a library: @fastify/rate-limit and rate-limiter-flexible
 * count fixed windows behind a promise per request (an async hook, or an awaited `consume`),
 * and neither can check two buckets (key and address) and take from both only when both allow,
 * which keeps a throttled request from using up the other bucket (docs/operating.md, Limits and
 * the quota).
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  /** Tokens in the bucket now (fractional), without taking any. */
  available(key: string, policy: BucketPolicy, now: number): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return policy.burst;
    return Math.min(policy.burst, bucket.tokens + ((now - bucket.at) * policy.rate) / 1000);
  }

  /** Takes one token of the `available` tokens counted at `now`. */
  take(key: string, policy: BucketPolicy, now: number, available: number): void {
    const tokens = available - 1;
    const fullAt = now + ((policy.burst - tokens) * 1000) / policy.rate;
    const bucket = this.buckets.get(key);
    if (bucket) {
      bucket.tokens = tokens;
      bucket.at = now;
      bucket.fullAt = fullAt;
    } else this.buckets.set(key, { tokens, at: now, fullAt });
  }

  /** Forgets the buckets whose key starts with `prefix`: they are full again. */
  refill(prefix: string): void {
    for (const key of this.buckets.keys()) {
      if (key.startsWith(prefix)) this.buckets.delete(key);
    }
  }

  /** Forgets the buckets that are full by `now`. */
  sweep(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.fullAt <= now) this.buckets.delete(key);
    }
  }

  get size(): number {
    return this.buckets.size;
  }
}

/** Seconds until the bucket holds one token again. */
export function secondsToToken(available: number, policy: BucketPolicy): number {
  return Math.max(1, Math.ceil((1 - available) / policy.rate));
}
