import { ProblemDetails, ProjectLimits, ThrottledStats } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { call } from '../support/http.js';
import { submitFrom } from '../support/ingest-limits.js';
import { sessionFor } from '../support/session-client.js';

/** The dashboard's limits settings and throttled counts: they work, and only for the owner. */
describe.each(DIALECTS)('ingest limits in the console on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, {
      TRUST_PROXY: 'true',
      INGEST_RATE_PER_KEY: '40',
      INGEST_BURST_PER_KEY: '100',
      INGEST_RATE_PER_ADDRESS: '1',
      INGEST_BURST_PER_ADDRESS: '3',
      ADDRESS_DAILY_SHARE: '10',
    });
  });
  afterAll(() => server.close());

  it('shows the defaults, saves a project’s own settings and goes back to the defaults', async () => {
    const t = await server.tenant({ monthlyQuota: 500 });
    const owner = await sessionFor(server, t.accountId);
    const path = `/v1/console/projects/${t.projectId}/limits`;

    const initial = ProjectLimits.parse((await owner.call(path)).body);
    expect(initial.settings).toEqual({
      key_rate: null,
      key_burst: null,
      address_rate: null,
      address_burst: null,
      address_daily_share: null,
      monthly_cap: null,
    });
    expect(initial.defaults).toEqual({
      key_rate: 40,
      key_burst: 100,
      address_rate: 1,
      address_burst: 3,
      address_daily_share: 10,
    });
    expect(initial.address_daily_limit).toBe(50);
    expect(initial.account_monthly_quota).toBe(500);
    expect(initial.month_used).toBe(0);

    const saved = await owner.call(path, {
      method: 'PUT',
      body: { key_rate: 5, key_burst: 10, address_daily_share: 20, monthly_cap: 100 },
    });
    expect(saved.status).toBe(200);
    const limits = ProjectLimits.parse(saved.body);
    expect(limits.settings).toMatchObject({
      key_rate: 5,
      key_burst: 10,
      address_rate: null,
      address_daily_share: 20,
      monthly_cap: 100,
    });
    expect(limits.address_daily_limit).toBe(100);
    expect(ProjectLimits.parse((await owner.call(path)).body).settings).toEqual(limits.settings);

    const reset = ProjectLimits.parse((await owner.call(path, { method: 'PUT', body: {} })).body);
    expect(reset.settings.monthly_cap).toBeNull();
    expect(reset.address_daily_limit).toBe(50);
  });

  it('refuses invalid settings, naming each field', async () => {
    const t = await server.tenant();
    const owner = await sessionFor(server, t.accountId);
    const res = await owner.call(`/v1/console/projects/${t.projectId}/limits`, {
      method: 'PUT',
      body: { key_rate: 0, address_daily_share: 150, monthly_cap: -1, address_burst: 'many' },
    });
    expect(res.status).toBe(400);
    const problem = ProblemDetails.parse(res.body);
    expect(problem.code).toBe('validation_failed');
    expect(problem.errors?.map((e) => e.field).sort()).toEqual([
      'address_burst',
      'address_daily_share',
      'key_rate',
      'monthly_cap',
    ]);
  });

  it('counts throttled submissions per reason and shows the top addresses', async () => {
    const t = await server.tenant();
    const owner = await sessionFor(server, t.accountId);
    const path = `/v1/console/projects/${t.projectId}/throttled`;
    expect(ThrottledStats.parse((await owner.call(path)).body)).toMatchObject({
      days: 7,
      total: 0,
      top_addresses: [],
    });

    // Burst of 3 per address: 8 from one address, 5 from another.
    const sent = [];
    for (let i = 0; i < 8; i++) sent.push(await submitFrom(server, t.ingestKey, '203.0.113.9'));
    for (let i = 0; i < 5; i++) sent.push(await submitFrom(server, t.ingestKey, '198.51.100.4'));
    const refused = sent.filter((r) => r.status === 429).length;
    expect(refused).toBeGreaterThanOrEqual(5);

    const stats = ThrottledStats.parse((await owner.call(path)).body);
    expect(stats.total).toBe(refused);
    expect(stats.by_reason.address_rate).toBe(refused);
    expect(stats.by_reason.key_rate).toBe(0);
    expect(stats.top_addresses[0]).toMatchObject({
      address: '203.0.113.9',
      last_day: new Date().toISOString().slice(0, 10),
    });
    expect(stats.top_addresses.map((a) => a.address)).toEqual(['203.0.113.9', '198.51.100.4']);
    expect(stats.top_addresses.reduce((n, a) => n + a.count, 0)).toBe(refused);
  });

  it("answers 404 for another account's project and 401 without a session", async () => {
    const t = await server.tenant();
    const other = await server.tenant();
    const owner = await sessionFor(server, t.accountId);
    for (const res of [
      await owner.call(`/v1/console/projects/${other.projectId}/limits`),
      await owner.call(`/v1/console/projects/${other.projectId}/limits`, {
        method: 'PUT',
        body: { monthly_cap: 0 },
      }),
      await owner.call(`/v1/console/projects/${other.projectId}/throttled`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('project_not_found');
    }
    const cap = await server.ctx.db
      .selectFrom('projects')
      .select('monthly_cap')
      .where('id', '=', other.projectId)
      .executeTakeFirstOrThrow();
    expect(cap.monthly_cap).toBeNull();

    for (const path of ['limits', 'throttled']) {
      const res = await call(`${server.url}/v1/console/projects/${t.projectId}/${path}`);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('not_authenticated');
    }
    // An API key reads reports, not the console.
    const withKey = await call(`${server.url}/v1/console/projects/${t.projectId}/limits`, {
      headers: { authorization: `Bearer ${t.apiKey}` },
    });
    expect(withKey.status).toBe(401);
  });

  it('refuses a settings change without the CSRF token', async () => {
    const t = await server.tenant();
    const owner = await sessionFor(server, t.accountId);
    const res = await call(`${server.url}/v1/console/projects/${t.projectId}/limits`, {
      method: 'PUT',
      body: { monthly_cap: 0 },
      headers: { cookie: owner.cookie },
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('csrf_failed');
  });
});
