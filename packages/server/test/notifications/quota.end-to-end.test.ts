import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { createApiKey } from '../../src/keys/key.service.js';
import { createProject } from '../../src/projects/project.service.js';
import { bearer, call } from '../support/http.js';
import { startReceiver, verify } from './webhook-receiver.js';

/**
 * The quota's notifications end to end: reports through POST /v1/reports pass 80 % of the
 * account's month and then reach it, and a real Standard Webhooks receiver gets each event once,
 * at every project of the account whose destination subscribes to it.
 */
describe.each(DIALECTS)('quota notifications end to end (%s)', (dialect) => {
  let server: TestServer;
  let hooks: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    hooks = await startReceiver();
    server = await startTestServer(dialect, {
      ALLOW_PRIVATE_DESTINATIONS: 'true',
      NOTIFY_RETRY_SCHEDULE: '1s,1s,1s',
    });
  });
  afterAll(async () => {
    await server?.close();
    await hooks?.close();
  });

  it('the report that passes 80 % and the one that reaches the quota each notify once', async () => {
    const t = await server.tenant({ monthlyQuota: 5 });
    const second = await createProject(server.ctx.db, t.accountId, 'Second project');
    const admin = (await createApiKey(server.ctx.db, t.accountId, 'admin', ['read', 'admin'])).key;
    const destination = async (projectId: string, path: string, events: string[]) => {
      const res = await call(`${server.url}/v1/dashboard/${projectId}/destinations`, {
        headers: bearer(admin),
        body: { type: 'webhook', url: `${hooks.url}-${path}`, events },
      });
      expect(res.status).toBe(201);
      return { id: res.body.id as string, secret: res.body.secret as string, projectId };
    };
    const both = await destination(t.projectId, `both-${dialect}`, [
      'quota.warning',
      'quota.reached',
    ]);
    const reached = await destination(second.project.id, `reached-${dialect}`, ['quota.reached']);

    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await call(`${server.url}/v1/reports`, {
        body: { ingest_key: t.ingestKey, outcome: 'success', details: `report ${i}` },
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);

    const at = (path: string) => hooks.received.filter((r) => r.path === `/hook-${path}`);
    await hooks.waitFor(
      () => at(`both-${dialect}`).length >= 2 && at(`reached-${dialect}`).length >= 1,
    );
    // Every attempt logged as a success: nothing is left to send, so nothing more can come.
    const delivered = async (d: { id: string; projectId: string }, count: number) => {
      const log = await call(
        `${server.url}/v1/dashboard/${d.projectId}/destinations/${d.id}/deliveries`,
        { headers: bearer(admin) },
      );
      return (
        (log.body.data as { status: string }[]).filter((row) => row.status === 'succeeded')
          .length === count
      );
    };
    for (let i = 0; i < 400 && !((await delivered(both, 2)) && (await delivered(reached, 1))); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));

    const month = new Date().toISOString().slice(0, 7);
    const bodies = at(`both-${dialect}`)
      .map((request) => verify(both.secret, request) as any)
      .sort((a, b) => a.data.used - b.data.used);
    expect(bodies.map((body) => [body.type, body.data.used, body.data.share])).toEqual([
      ['quota.warning', 4, 0.8],
      ['quota.reached', 5, 1],
    ]);
    for (const body of bodies) {
      expect(body.data).toMatchObject({ quota: 5, month, project: { id: t.projectId } });
    }
    const others = at(`reached-${dialect}`).map(
      (request) => verify(reached.secret, request) as any,
    );
    expect(others).toHaveLength(1);
    expect(others[0]).toMatchObject({
      type: 'quota.reached',
      data: { used: 5, quota: 5, month, project: { id: second.project.id } },
    });
  });
});
