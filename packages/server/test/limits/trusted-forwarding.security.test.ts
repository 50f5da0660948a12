import { CreatedForwardingSecret, ForwardingSecretList, ProblemDetails } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { call, type HttpResult } from '../support/http.js';
import { statuses, storedOf } from '../support/ingest-limits.js';
import { sessionFor } from '../support/session-client.js';

/**
 * A host app forwarding for many agents (the Express router) is one address to Debrief. With the
 * project's forwarding secret, the per-address limits count each agent's address; without it,
 * nothing changes, and a flood from one address is refused as before. The production defaults
 * of the address limits (10 a second, bursts of 60, a daily share of 10 % of the month); the key
 * bucket is raised, as an owner expecting a host's traffic would (it is per project either way).
 */
const LIMITS = {
  TRUST_PROXY: 'true',
  INGEST_RATE_PER_KEY: '100000',
  INGEST_BURST_PER_KEY: '100000',
  INGEST_RATE_PER_ADDRESS: '10',
  INGEST_BURST_PER_ADDRESS: '60',
  ADDRESS_DAILY_SHARE: '10',
};

/** `count` reports at 100 a second: ten every 100 ms, each batch sent at once. */
async function atHundredPerSecond(
  count: number,
  send: (i: number) => Promise<HttpResult>,
): Promise<HttpResult[]> {
  const results: HttpResult[] = [];
  for (let batch = 0; batch < count / 10; batch++) {
    const started = Date.now();
    results.push(
      ...(await Promise.all(Array.from({ length: 10 }, (_, j) => send(batch * 10 + j)))),
    );
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 100 - (Date.now() - started))));
  }
  return results;
}

describe.each(DIALECTS)('trusted forwarding on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, LIMITS);
  });
  afterAll(() => server.close());

  const submit = (ingestKey: string, host: string, headers: Record<string, string> = {}, i = 0) =>
    call(`${server.url}/v1/reports`, {
      body: { ingest_key: ingestKey, outcome: 'success', details: `forwarded #${i}` },
      headers: { 'x-forwarded-for': host, ...headers },
    });

  async function secretFor(accountId: string, projectId: string): Promise<CreatedForwardingSecret> {
    const owner = await sessionFor(server, accountId);
    const res = await owner.call(`/v1/console/projects/${projectId}/forwarding-secrets`, {
      body: { name: 'docs site' },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    return CreatedForwardingSecret.parse(res.body);
  }

  it('stores every report of a trusted host at 100 reports/s for 50 agents', async () => {
    const t = await server.tenant();
    const { secret } = await secretFor(t.accountId, t.projectId);
    expect(secret).toMatch(/^wf_[0-9a-f]{48}$/);
    // Through one address, 100 in a second are past its burst of 60; per agent, two each.
    const results = await atHundredPerSecond(100, (i) =>
      submit(
        t.ingestKey,
        '203.0.113.10',
        {
          'debrief-forwarding-secret': secret,
          'debrief-forwarded-for': `198.51.100.${i % 50}`,
        },
        i,
      ),
    );
    expect(statuses(results)).toEqual({ 201: 100 });
    expect(await storedOf(server, t.projectId, t.accountId)).toEqual({ reports: 100, usage: 100 });
    // Throttles, had there been any, would name the agents: the host is no one's address.
  });

  it('still refuses a flood from one untrusted address, whatever Debrief-Forwarded-For says', async () => {
    const t = await server.tenant();
    // 200: past the burst and the refill even if sending them is slowed several times over.
    const results = await atHundredPerSecond(200, (i) =>
      submit(t.ingestKey, '203.0.113.20', { 'debrief-forwarded-for': `198.51.100.${i % 50}` }, i),
    );
    const counts = statuses(results);
    // A burst of 60 and 10 a second while they arrive: about 80 of the 200.
    expect(counts[201]).toBeGreaterThanOrEqual(60);
    expect(counts[429]).toBeGreaterThan(0);
    expect(counts[429]).toBe(200 - counts[201]!);
    const refused = results.find((r) => r.status === 429)!;
    expect(ProblemDetails.parse(refused.body).code).toBe('rate_limited');
    expect(refused.headers.get('ratelimit-policy')).toBe('"address";q=60;w=6');
    expect((await storedOf(server, t.projectId, t.accountId)).reports).toBe(counts[201]);
  });

  it("counts a trusted host's one agent as that agent: its own flood is refused", async () => {
    const t = await server.tenant();
    const { secret } = await secretFor(t.accountId, t.projectId);
    const results = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        submit(
          t.ingestKey,
          '203.0.113.30',
          { 'debrief-forwarding-secret': secret, 'debrief-forwarded-for': '192.0.2.99' },
          i,
        ),
      ),
    );
    const counts = statuses(results);
    expect(counts[429]).toBeGreaterThan(0);
    // Another agent behind the same host is not held back by it.
    const other = await submit(t.ingestKey, '203.0.113.30', {
      'debrief-forwarding-secret': secret,
      'debrief-forwarded-for': '192.0.2.100',
    });
    expect(other.status).toBe(201);
  });

  it("refuses a secret that is unknown, revoked or another project's, and one without an agent address", async () => {
    const a = await server.tenant();
    const b = await server.tenant();
    const secretA = await secretFor(a.accountId, a.projectId);
    const secretB = await secretFor(b.accountId, b.projectId);
    const forwarded = (secret: string) => ({
      'debrief-forwarding-secret': secret,
      'debrief-forwarded-for': '198.51.100.7',
    });
    for (const secret of [`wf_${'0'.repeat(48)}`, 'not-a-secret', secretB.secret]) {
      const res = await submit(a.ingestKey, '203.0.113.40', forwarded(secret));
      expect(res.status).toBe(401);
      expect(ProblemDetails.parse(res.body).code).toBe('invalid_forwarding_secret');
      expect(res.body.detail).toMatch(/Forwarding secrets/);
    }
    const noAgent = await submit(a.ingestKey, '203.0.113.40', {
      'debrief-forwarding-secret': secretA.secret,
    });
    expect(noAgent.status).toBe(400);
    expect(noAgent.body.errors).toEqual([
      { field: 'Debrief-Forwarded-For', message: 'must be one IP address' },
    ]);
    expect((await submit(a.ingestKey, '203.0.113.40', forwarded(secretA.secret))).status).toBe(201);

    const owner = await sessionFor(server, a.accountId);
    const listed = ForwardingSecretList.parse(
      (await owner.call(`/v1/console/projects/${a.projectId}/forwarding-secrets`)).body,
    );
    expect(listed.secrets).toEqual([
      {
        id: secretA.id,
        name: 'docs site',
        prefix: secretA.secret.slice(0, 9),
        created_at: secretA.created_at,
        revoked_at: null,
      },
    ]);
    expect(JSON.stringify(listed)).not.toContain(secretA.secret);
    const revoke = await owner.call(
      `/v1/console/projects/${a.projectId}/forwarding-secrets/${secretA.id}`,
      { method: 'DELETE' },
    );
    expect(revoke.status).toBe(204);
    const revoked = await submit(a.ingestKey, '203.0.113.40', forwarded(secretA.secret));
    expect(revoked.status).toBe(401);
    expect(revoked.body.code).toBe('invalid_forwarding_secret');
    const again = await owner.call(
      `/v1/console/projects/${a.projectId}/forwarding-secrets/${secretA.id}`,
      { method: 'DELETE' },
    );
    expect(again.status).toBe(404);
    // Another account cannot list, create or revoke this project's secrets.
    const stranger = await sessionFor(server, b.accountId);
    const foreign = await stranger.call(`/v1/console/projects/${a.projectId}/forwarding-secrets`);
    expect(foreign.status).toBe(404);
    // Stored hashed: the secret itself is nowhere in the table.
    const rows = await server.ctx.db.selectFrom('forwarding_secrets').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(secretA.secret.slice(9));
  });

  it('lets a trusted host forward call counts too', async () => {
    const t = await server.tenant();
    const { secret } = await secretFor(t.accountId, t.projectId);
    const window = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 60_000).toISOString();
    const res = await call(`${server.url}/v1/usage`, {
      body: {
        ingest_key: t.ingestKey,
        window_start: window,
        tools: { t: { calls: 3, errors: 0 } },
      },
      headers: { 'debrief-forwarding-secret': secret, 'debrief-forwarded-for': '2001:db8::1' },
    });
    expect(res.status).toBe(200);
  });
});
