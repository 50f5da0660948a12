import { ProblemDetails } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { createPasswordHasher } from '../../src/accounts/password-hasher.js';
import { ApiError } from '../../src/errors/api-error.js';
import { call } from '../support/http.js';

/**
 * A sign-up flood from one address, each account a 128 MiB scrypt hash, would starve ingest.
 * Open sign-ups are throttled per address, and every password hash (sign-up and sign-in) takes
 * one of a few slots, so hashing cannot starve ingest.
 */

describe.each(DIALECTS)(
  'sign-ups and sign-ins in a flood on %s',
  { timeout: 90_000 },
  (dialect) => {
    let server: TestServer;
    beforeAll(async () => {
      // TRUST_PROXY so the test can speak from two addresses; 2 free sign-ups an hour each. The
      // default hashing bound, with hashes dear enough (2^14: 16 MiB, an eighth of production's)
      // that a queue of sign-ins is still hashing when a report is stored.
      server = await startTestServer(
        dialect,
        { SIGNUPS: 'open', SIGNUPS_PER_ADDRESS: '2', TRUST_PROXY: 'true' },
        { passwordHashing: { scryptN: 2 ** 14 } },
      );
    });
    afterAll(() => server.close());

    const signupFrom = (address: string, email: string) =>
      call(`${server.url}/v1/auth/signup`, {
        body: { email, password: 'correct horse battery' },
        headers: { 'x-forwarded-for': address },
      });

    it('answers 429 rate_limited with Retry-After past the free sign-ups, and stores nothing', async () => {
      expect((await signupFrom('203.0.113.7', 'a1@example.test')).status).toBe(201);
      expect((await signupFrom('203.0.113.7', 'a2@example.test')).status).toBe(201);
      const limited = await signupFrom('203.0.113.7', 'a3@example.test');
      expect(limited.status).toBe(429);
      expect(ProblemDetails.parse(limited.body).code).toBe('rate_limited');
      expect(limited.body.detail).toMatch(/Too many sign-ups from your address/);
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      expect(limited.headers.get('set-cookie')).toBeNull();
      const stored = await server.ctx.db
        .selectFrom('accounts')
        .select('email')
        .where('email', '=', 'a3@example.test')
        .executeTakeFirst();
      expect(stored).toBeUndefined();

      // Another address is not affected.
      expect((await signupFrom('198.51.100.9', 'b1@example.test')).status).toBe(201);
    });

    it('does not count requests refused before the hash (invalid fields)', async () => {
      for (let i = 0; i < 3; i++) {
        const bad = await call(`${server.url}/v1/auth/signup`, {
          body: { email: 'not-an-email', password: 'short' },
          headers: { 'x-forwarded-for': '192.0.2.44' },
        });
        expect(bad.status).toBe(400);
      }
      expect((await signupFrom('192.0.2.44', 'c1@example.test')).status).toBe(201);
    });

    it('never runs more hashes at once than its bound under 20 sign-ins, and ingest does not wait for them', async () => {
      const tenant = await server.tenant();
      const hasher = server.ctx.passwords;
      expect(hasher.concurrency).toBeGreaterThanOrEqual(1);
      expect(hasher.concurrency).toBeLessThanOrEqual(4);

      // Unknown emails: each is checked against the dummy hash, costing one scrypt like any other.
      const signins = Array.from({ length: 20 }, (_, i) =>
        call(`${server.url}/v1/auth/signin`, {
          body: { email: `nobody-${i}@example.test`, password: 'guess guess' },
        }),
      );
      // Once hashing is under way, one report is submitted.
      const started = Date.now();
      while (hasher.stats.running === 0 && Date.now() - started < 10_000)
        await new Promise((resolve) => setTimeout(resolve, 5));
      expect(hasher.stats.running).toBeGreaterThan(0);
      const submit = await call(`${server.url}/v1/reports`, {
        body: {
          ingest_key: tenant.ingestKey,
          outcome: 'success',
          details: 'during a sign-in flood',
        },
      });
      const stillHashing = hasher.stats.running + hasher.stats.waiting;
      const results = await Promise.all(signins);

      expect(submit.status).toBe(201);
      // Hashes were still running or queued when the report was stored: it did not wait for them.
      expect(stillHashing).toBeGreaterThan(0);

      expect(hasher.stats.peak).toBeLessThanOrEqual(hasher.concurrency);
      expect(hasher.stats.running).toBe(0);
      const statuses = results.map((r) => r.status);
      expect(statuses.every((s) => s === 401 || s === 503)).toBe(true);
      expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0);
      // The queue is bounded too: past it, 503 at once, with Retry-After.
      for (const busy of results.filter((r) => r.status === 503)) {
        expect(ProblemDetails.parse(busy.body).code).toBe('service_unavailable');
        expect(Number(busy.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      expect(statuses.filter((s) => s === 503).length).toBe(hasher.stats.refused);
    });
  },
);

describe('the password hasher alone', { timeout: 60_000 }, () => {
  it('runs at most `concurrency` at once, queues `maxWaiting`, refuses the rest at once', async () => {
    // The bound is decided before a hash starts: a cheap scrypt shows it as well.
    const hasher = createPasswordHasher({ concurrency: 2, maxWaiting: 1, scryptN: 2 ** 10 });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => hasher.hash(`password ${i}`)),
    );
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
    expect(refused).toHaveLength(3);
    for (const r of refused) {
      const error = (r as PromiseRejectedResult).reason;
      expect(error).toBeInstanceOf(ApiError);
      expect(error.code).toBe('service_unavailable');
      expect(error.options.headers['Retry-After']).toBe('2');
    }
    expect(hasher.stats).toEqual({ running: 0, waiting: 0, peak: 2, refused: 3 });
    const stored = (outcomes[0] as PromiseFulfilledResult<string>).value;
    expect(await hasher.verify('password 0', stored)).toBe(true);
  });
});
