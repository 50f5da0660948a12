import { ProblemDetails } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';
import { signUp } from '../support/session-client.js';
import { openSse } from '../support/sse-reader.js';

/**
 * Two instances on one PostgreSQL database, each with its own context (its
 * own pool, writer, event bus and throttles), as two `debrief serve` processes behind one load
 * balancer would be. What must hold across them: the quota is exact, live events reach both,
 * and sign-in throttling is shared. (realtime.cross-instance.test.ts covers the event streams
 * in depth: replay, heartbeats, access; here a stream only watches the quota race.)
 */
describe.skipIf(!DIALECTS.includes('postgres'))('two instances on one PostgreSQL', () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    const env = { SIGNUPS: 'open', SIGNUPS_PER_ADDRESS: '1000' };
    a = await startTestServer('postgres', env);
    b = await startTestServer('postgres', env, { databaseUrl: a.config.databaseUrl });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('20 concurrent submits split across both with 5 left store exactly 5, and a stream on A sees all 5', async () => {
    const t = await a.tenant({ monthlyQuota: 5 });
    const stream = await openSse(`${a.url}/v1/dashboard/${t.projectId}/events`, bearer(t.apiKey));
    try {
      await stream.waitFor((e) => e.event === 'ready', 10_000, 'ready on A');
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          call(`${(i % 2 ? b : a).url}/v1/reports`, {
            body: { ingest_key: t.ingestKey, outcome: 'failure', details: `race ${i}` },
          }),
        ),
      );
      const created = results.filter((r) => r.status === 201);
      const refused = results.filter((r) => r.status === 429);
      expect(created).toHaveLength(5);
      expect(refused).toHaveLength(15);
      for (const r of refused) expect(ProblemDetails.parse(r.body).code).toBe('quota_exceeded');

      // Both instances count the same stored reports.
      for (const server of [a, b]) {
        const list = await call(`${server.url}/v1/dashboard/${t.projectId}/reports`, {
          headers: bearer(t.apiKey),
        });
        expect(list.body.pagination.total).toBe(5);
      }
      // The stream on A gets every stored report, the ones B stored included, each once.
      const ids = created.map((r) => r.body.id as string);
      for (const id of ids) await stream.waitFor((e) => e.id === id, 10_000, `report ${id} on A`);
      const streamed = stream.events.filter((e) => e.event === 'report').map((e) => e.id);
      expect(streamed.sort()).toEqual([...ids].sort());
    } finally {
      stream.close();
    }
  });

  it('failed sign-ins on A lock the account on B, even with the right password', async () => {
    const user = await signUp(a, 'the real password');
    const signin = (server: TestServer, password: string) =>
      call(`${server.url}/v1/auth/signin`, { body: { email: user.email, password } });
    for (let i = 0; i < 5; i++) expect((await signin(a, `guess ${i}`)).status).toBe(401);
    const onB = await signin(b, 'the real password');
    expect(onB.status).toBe(429);
    expect(ProblemDetails.parse(onB.body).code).toBe('rate_limited');
    expect(Number(onB.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
