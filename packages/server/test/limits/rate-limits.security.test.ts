import { ProblemDetails } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { createProject } from '../../src/projects/project.service.js';
import { call } from '../support/http.js';
import { statuses, storedOf, submitFrom } from '../support/ingest-limits.js';
import { sessionFor } from '../support/session-client.js';

/**
 * A public ingest key must not let one address take the month. Small
 * limits so each case is a handful of requests; addresses come from X-Forwarded-For, which the
 * server trusts (TRUST_PROXY=true), as behind a proxy.
 */
const LIMITS = {
  TRUST_PROXY: 'true',
  INGEST_RATE_PER_KEY: '1',
  INGEST_BURST_PER_KEY: '8',
  INGEST_RATE_PER_ADDRESS: '1',
  INGEST_BURST_PER_ADDRESS: '5',
  ADDRESS_DAILY_SHARE: '10',
};

describe.each(DIALECTS)('ingest rate limits on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, LIMITS);
  });
  afterAll(() => server.close());

  it('refuses a burst beyond the address bucket with 429 rate_limited and RateLimit headers, storing nothing and using no quota, while another address gets in', async () => {
    const t = await server.tenant();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => submitFrom(server, t.ingestKey, '203.0.113.7', `#${i}`)),
    );
    const counts = statuses(results);
    // A burst of 5; a slow machine may refill a token or two while the 12 arrive.
    expect(counts[201]).toBeGreaterThanOrEqual(5);
    expect(counts[201]).toBeLessThanOrEqual(7);
    expect(counts[429]).toBe(12 - counts[201]!);

    const limited = results.find((r) => r.status === 429)!;
    expect(limited.headers.get('content-type')).toContain('application/problem+json');
    expect(ProblemDetails.parse(limited.body).code).toBe('rate_limited');
    expect(limited.body.detail).toMatch(/Retry-After/);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(1);
    expect(limited.headers.get('ratelimit-policy')).toBe('"address";q=5;w=5');
    expect(limited.headers.get('ratelimit')).toBe(`"address";r=0;t=${retryAfter}`);

    // Nothing stored and no quota used by the refused ones.
    expect(await storedOf(server, t.projectId, t.accountId)).toEqual({
      reports: counts[201],
      usage: counts[201],
    });
    // The flood drained its own bucket, not the key's: a second address is accepted.
    const other = await submitFrom(server, t.ingestKey, '198.51.100.23');
    expect(other.status).toBe(201);
  });

  it('throttles a flood of invalid bodies like valid ones, before their fields are checked', async () => {
    const t = await server.tenant();
    const results = [];
    for (let i = 0; i < 8; i++) {
      results.push(
        await call(`${server.url}/v1/reports`, {
          body: { ingest_key: t.ingestKey, outcome: 'broken', details: '' },
          headers: { 'x-forwarded-for': '203.0.113.99' },
        }),
      );
    }
    const counts = statuses(results);
    // The address bucket holds 5: the first ones learn what is wrong, the rest are throttled.
    expect(counts[400]).toBeGreaterThanOrEqual(5);
    expect(counts[400]).toBeLessThanOrEqual(6);
    expect(counts[429]).toBe(8 - counts[400]!);
  });

  it('refuses what passes the key bucket, whatever the address', async () => {
    const t = await server.tenant();
    const results = await Promise.all(
      Array.from({ length: 14 }, (_, i) => submitFrom(server, t.ingestKey, `192.0.2.${i + 1}`)),
    );
    const counts = statuses(results);
    expect(counts[201]).toBeGreaterThanOrEqual(8);
    expect(counts[201]).toBeLessThanOrEqual(10);
    const limited = results.find((r) => r.status === 429)!;
    expect(limited.body.code).toBe('rate_limited');
    expect(limited.headers.get('ratelimit-policy')).toBe('"key";q=8;w=8');
    expect((await storedOf(server, t.projectId, t.accountId)).reports).toBe(counts[201]);
  });

  it('IPv6 addresses of one /64 share a bucket', async () => {
    const t = await server.tenant();
    const results = [];
    for (let i = 0; i < 7; i++) {
      results.push(await submitFrom(server, t.ingestKey, `2001:db8:1:2::${(i + 1).toString(16)}`));
    }
    expect(statuses(results)[429]).toBeGreaterThanOrEqual(1);
    expect((await submitFrom(server, t.ingestKey, '2001:db8:1:3::1')).status).toBe(201);
  });

  it("stops one address at its daily share of the account's month while another still gets in", async () => {
    // 10 % of 30 = 3 reports per address per UTC day.
    const t = await server.tenant({ monthlyQuota: 30 });
    for (let i = 0; i < 3; i++) {
      expect((await submitFrom(server, t.ingestKey, '203.0.113.50')).status).toBe(201);
    }
    const refused = await submitFrom(server, t.ingestKey, '203.0.113.50');
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('rate_limited');
    expect(refused.body.detail).toContain('daily share');
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(86_400);
    expect(refused.headers.get('ratelimit-policy')).toBe('"daily";q=3;w=86400');
    expect(refused.headers.get('ratelimit')).toBe(`"daily";r=0;t=${wait}`);

    expect((await submitFrom(server, t.ingestKey, '203.0.113.51')).status).toBe(201);
    expect(await storedOf(server, t.projectId, t.accountId)).toEqual({ reports: 4, usage: 4 });
  });

  it("stops a project at its monthly cap while the account's other project still gets in", async () => {
    const t = await server.tenant();
    const second = await createProject(server.ctx.db, t.accountId, 'Second');
    // One report before the cap is set counts against it.
    expect((await submitFrom(server, t.ingestKey, '203.0.113.60')).status).toBe(201);
    const owner = await sessionFor(server, t.accountId);
    const set = await owner.call(`/v1/console/projects/${t.projectId}/limits`, {
      method: 'PUT',
      body: { monthly_cap: 2 },
    });
    expect(set.status).toBe(200);
    expect(set.body.settings.monthly_cap).toBe(2);

    expect((await submitFrom(server, t.ingestKey, '203.0.113.61')).status).toBe(201);
    const refused = await submitFrom(server, t.ingestKey, '203.0.113.62');
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('quota_exceeded');
    expect(refused.body.detail).toContain('monthly cap');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    expect((await submitFrom(server, second.ingestKey, '203.0.113.62')).status).toBe(201);
    expect((await storedOf(server, t.projectId, t.accountId)).usage).toBe(3);
  });

  it("takes a project's own bucket settings at once", async () => {
    const t = await server.tenant();
    const owner = await sessionFor(server, t.accountId);
    const set = await owner.call(`/v1/console/projects/${t.projectId}/limits`, {
      method: 'PUT',
      body: { address_rate: 1, address_burst: 2 },
    });
    expect(set.status).toBe(200);
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await submitFrom(server, t.ingestKey, '203.0.113.70'));
    expect(results.map((r) => r.status)).toEqual([201, 201, 429]);
    expect(results[2]!.headers.get('ratelimit-policy')).toBe('"address";q=2;w=2');

    // Raised above the instance's default: more than its burst of 5 get in.
    await owner.call(`/v1/console/projects/${t.projectId}/limits`, {
      method: 'PUT',
      body: { address_rate: 100, address_burst: 50, key_rate: 100, key_burst: 50 },
    });
    const burst = await Promise.all(
      Array.from({ length: 20 }, () => submitFrom(server, t.ingestKey, '203.0.113.71')),
    );
    expect(statuses(burst)).toEqual({ 201: 20 });
  });
});

describe.each(DIALECTS)('the daily share across a restart on %s', (dialect) => {
  it('is kept in the database: a restarted server still refuses the address', async () => {
    const database = await createTestDatabase(dialect);
    const env = { ...LIMITS, FREE_TIER_MONTHLY_REPORTS: '20' };
    let server = await startTestServer(dialect, env, { databaseUrl: database.url });
    try {
      const t = await server.tenant();
      for (let i = 0; i < 2; i++) {
        expect((await submitFrom(server, t.ingestKey, '203.0.113.80')).status).toBe(201);
      }
      await server.close();
      server = await startTestServer(dialect, env, { databaseUrl: database.url });
      const refused = await submitFrom(server, t.ingestKey, '203.0.113.80');
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('rate_limited');
      expect((await submitFrom(server, t.ingestKey, '203.0.113.81')).status).toBe(201);
    } finally {
      await server.close();
      await database.drop();
    }
  });
});
