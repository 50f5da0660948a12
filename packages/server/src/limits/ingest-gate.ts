import type { ThrottleReason } from '@debrief/protocol';
import type { IngestLimitDefaults } from '../config.js';
import { ApiError } from '../errors/api-error.js';
import type { IngestKeyCache, IngestKeyProfile } from '../keys/ingest-key-cache.js';
import { unknownIngestKeyError } from '../keys/key.service.js';
import { clientAddress } from './client-address.js';
import { type Forwarded, invalidForwardingSecret } from './forwarding/forwarded-request.js';
import type { ForwardingSecrets } from './forwarding/forwarding-secrets.js';
import type { ThrottleLog } from './throttle-log.js';
import { type BucketPolicy, secondsToToken, TokenBuckets } from './token-buckets.js';

const SWEEP_MS = 10_000;

/** A submission the buckets let through: its project and the address it counts against. */
export interface Admission {
  projectId: string;
  address: string;
}

function policy(rate: number | null, burst: number | null): BucketPolicy | null {
  return rate === null || burst === null ? null : { rate, burst };
}

/** `"name";q=…;w=…` and `"name";r=…;t=…` (draft-ietf-httpapi-ratelimit-headers-10). */
export function rateLimitHeaders(
  name: string,
  quota: number,
  windowSeconds: number,
  remaining: number,
  resetSeconds: number,
): Record<string, string> {
  return {
    'Retry-After': String(resetSeconds),
    'RateLimit-Policy': `"${name}";q=${quota};w=${windowSeconds}`,
    RateLimit: `"${name}";r=${remaining};t=${resetSeconds}`,
  };
}

/**
 * The per-request side of the ingest limits (docs/operating.md, Limits and the quota): a token
 * bucket per ingest key
 * (per project) and one per client address and project, in memory, per process. It runs in the
 * submit handler, after the body is validated and before anything is stored, and is synchronous
 * whenever the key's settings are cached (every request but one per key per 10 s, in the cache
 * the report screen shares: keys/ingest-key-cache.ts), so the hot path pays no promise for it. A request is let through only if BOTH buckets hold a token, and
 * takes one from each only then: a flood one address sends is refused by its own bucket without
 * draining the key's, so the key's other addresses still get in. A refused request is 429
 * `rate_limited`, stores nothing and uses no quota.
 *
 * Settings changed in the dashboard apply at once on this instance (`forget`), within 10 s on
 * others. The limits on stored reports (the address's daily share, the project's monthly cap)
 * are exact and kept in the database by the report writers (storage-limits.ts).
 */
export class IngestGate {
  private readonly keyBuckets = new TokenBuckets();
  private readonly addressBuckets = new TokenBuckets();
  /** Per address, for keys that turn out unknown: made-up keys cost a lookup each. */
  private readonly unknownKeyBuckets = new TokenBuckets();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    /** The key → project cache the report screen shares (keys/ingest-key-cache.ts). */
    private readonly keys: IngestKeyCache,
    private readonly defaults: IngestLimitDefaults,
    private readonly throttles: ThrottleLog,
    /** Which project a host's forwarding secret belongs to (limits/forwarding/). */
    private readonly forwarding: ForwardingSecrets,
  ) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  /**
   * Lets the submission through, or throws 429 (a bucket is empty) or 401 (unknown key, or a
   * forwarding secret that is not the key's project's). With `forwarded` (a trusted host's
   * headers, limits/forwarding/), the address limits count the agent's address it names instead
   * of the host's; the key's bucket is the same either way.
   */
  admit(ingestKey: string, ip: string, forwarded?: Forwarded): Admission | Promise<Admission> {
    const host = clientAddress(ip);
    const profile = this.profileOf(ingestKey, host);
    if (!forwarded) {
      return profile instanceof Promise
        ? profile.then((loaded) => this.check(loaded, host, Date.now()))
        : this.check(profile, host, Date.now());
    }
    // A host forwarding for agents: the secret must be the key's project's before the agent's
    // address is trusted; an unknown key is refused as any (its throttle counted on the host).
    const owner = this.forwarding.projectOf(forwarded.secret);
    const agent = clientAddress(forwarded.address);
    const decide = (loaded: IngestKeyProfile | null, project: string | null): Admission => {
      if (loaded !== null && project !== loaded.project_id) throw invalidForwardingSecret();
      return this.check(loaded, agent, Date.now());
    };
    if (profile instanceof Promise || owner instanceof Promise) {
      return Promise.all([profile, owner]).then(([loaded, project]) => decide(loaded, project));
    }
    return decide(profile, owner);
  }

  /**
   * The key's cached profile, or its read: made-up keys are throttled per address before they
   * cost a read each.
   */
  private profileOf(
    ingestKey: string,
    address: string,
  ): IngestKeyProfile | null | Promise<IngestKeyProfile | null> {
    const now = Date.now();
    const cached = this.keys.peek(ingestKey, now);
    if (cached !== undefined) return cached;
    const unknownPolicy = policy(this.defaults.addressRate, this.defaults.addressBurst);
    if (unknownPolicy) {
      const left = this.unknownKeyBuckets.available(address, unknownPolicy, now);
      if (left < 1) throw this.refused('address_rate', unknownPolicy, left);
    }
    return Promise.resolve(this.keys.get(ingestKey)).then((loaded) => {
      const at = Date.now();
      if (loaded === null && unknownPolicy) {
        const left = this.unknownKeyBuckets.available(address, unknownPolicy, at);
        if (left >= 1) this.unknownKeyBuckets.take(address, unknownPolicy, at, left);
      }
      return loaded;
    });
  }

  /**
   * Drops a project's cached key (its settings changed, or it was rotated), and starts its
   * buckets full under the new settings: a raised limit applies at once.
   */
  forget(projectId: string): void {
    this.keys.forgetProject(projectId);
    this.keyBuckets.refill(projectId);
    this.addressBuckets.refill(`${projectId} `);
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private check(profile: IngestKeyProfile | null, address: string, now: number): Admission {
    if (profile === null) throw unknownIngestKeyError();
    const projectId = profile.project_id;
    const d = this.defaults;
    const keyPolicy = policy(profile.key_rate ?? d.keyRate, profile.key_burst ?? d.keyBurst);
    const addressPolicy = policy(
      profile.address_rate ?? d.addressRate,
      profile.address_burst ?? d.addressBurst,
    );
    const addressKey = `${projectId} ${address}`;
    const keyLeft = keyPolicy ? this.keyBuckets.available(projectId, keyPolicy, now) : 1;
    const addressLeft = addressPolicy
      ? this.addressBuckets.available(addressKey, addressPolicy, now)
      : 1;
    if (addressPolicy && addressLeft < 1) {
      this.throttles.record(projectId, address, 'address_rate', now);
      throw this.refused('address_rate', addressPolicy, addressLeft);
    }
    if (keyPolicy && keyLeft < 1) {
      this.throttles.record(projectId, address, 'key_rate', now);
      throw this.refused('key_rate', keyPolicy, keyLeft);
    }
    if (keyPolicy) this.keyBuckets.take(projectId, keyPolicy, now, keyLeft);
    if (addressPolicy) this.addressBuckets.take(addressKey, addressPolicy, now, addressLeft);
    return { projectId, address };
  }

  private refused(reason: ThrottleReason, bucket: BucketPolicy, left: number): ApiError {
    const wait = secondsToToken(left, bucket);
    const who =
      reason === 'key_rate' ? 'This ingest key has sent' : 'Your address has sent this project';
    return new ApiError(
      'rate_limited',
      `${who} more than ${bucket.burst} reports at once or ${bucket.rate} per second, so this report was not stored (and used no quota). Wait ${wait} s (Retry-After) and send it again; send reports one at a time, after each task, not in a loop.`,
      {
        headers: rateLimitHeaders(
          reason === 'key_rate' ? 'key' : 'address',
          bucket.burst,
          Math.ceil(bucket.burst / bucket.rate),
          0,
          wait,
        ),
      },
    );
  }

  private sweep(): void {
    const now = Date.now();
    this.keyBuckets.sweep(now);
    this.addressBuckets.sweep(now);
    this.unknownKeyBuckets.sweep(now);
    this.keys.sweep(now);
    this.forwarding.sweep(now);
  }
}
