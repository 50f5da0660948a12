import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { createApiKey } from '../../src/keys/key.service.js';
import { enqueueNotifications } from '../../src/notifications/index.js';
import { bearer, call } from '../support/http.js';
import { startReceiver } from './webhook-receiver.js';

/**
 * Two instances on one PostgreSQL, each with its deliverer: every event is fanned out once and
 * every message sent by one of them (the outbox's and the messages' `for update skip locked`
 * claims), so a receiver that answers at once gets each exactly once.
 */
describe.skipIf(!DIALECTS.includes('postgres'))(
  'notifications with two instances on one PostgreSQL',
  () => {
    let a: TestServer;
    let b: TestServer;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    beforeAll(async () => {
      const env = { ALLOW_PRIVATE_DESTINATIONS: 'true' };
      a = await startTestServer('postgres', env);
      b = await startTestServer('postgres', env, { databaseUrl: a.config.databaseUrl });
      receiver = await startReceiver();
    });
    afterAll(async () => {
      await receiver?.close();
      await b?.close();
      await a?.close();
    });

    it('delivers each of 200 events once, from one instance or the other', async () => {
      // A receiver that takes a moment: both deliverers have claims in flight at once.
      receiver.setAnswer(() => ({ status: 200, delayMs: 100 }));
      const t = await a.tenant();
      const admin = (await createApiKey(a.ctx.db, t.accountId, 'admin', ['admin'])).key;
      const created = await call(`${b.url}/v1/dashboard/${t.projectId}/destinations`, {
        headers: bearer(admin),
        body: { type: 'webhook', url: receiver.url, events: ['issue.created', 'issue.regressed'] },
      });
      expect(created.status).toBe(201);
      const EVENTS = 200;
      // Written as producers write them, through both instances' connections.
      for (let i = 0; i < EVENTS; i += 10) {
        const db = (i / 10) % 2 ? b.ctx.db : a.ctx.db;
        await enqueueNotifications(
          db,
          Array.from({ length: 10 }, (_, j) => ({
            projectId: t.projectId,
            type: 'issue.created' as const,
            data: { n: i + j },
          })),
        );
      }
      await receiver.waitFor((r) => r.length >= EVENTS, 60_000);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
      expect(ids).toHaveLength(EVENTS);
      expect(new Set(ids).size).toBe(EVENTS);
      const numbers = receiver.received.map((r) => r.json.data.n as number).sort((x, y) => x - y);
      expect(numbers).toEqual(Array.from({ length: EVENTS }, (_, i) => i));
      // Both took part, and no message was attempted twice.
      expect(a.ctx.deliverer.attempted).toBeGreaterThan(0);
      expect(b.ctx.deliverer.attempted).toBeGreaterThan(0);
      expect(a.ctx.deliverer.attempted + b.ctx.deliverer.attempted).toBe(EVENTS);
    }, 90_000);
  },
);
