import type { Delivery } from '@debrief/protocol';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../../test/harness/test-server.js';
import { createApiKey } from '../../src/keys/key.service.js';
import { createGuardedPoster, type GuardedPoster } from '../../src/notifications/guarded-post.js';
import { Deliverer, enqueueNotifications } from '../../src/notifications/index.js';
import { webhookChannel } from '../../src/notifications/webhook-channel.js';
import { bearer, call } from '../support/http.js';
import { startReceiver } from './webhook-receiver.js';

/** The guard's wait for an answer here (10 s in the server): a timeout costs this much. */
const ANSWER_TIMEOUT_MS = 1000;
/** Waits between attempts: short, so a retry that would come comes within a few rounds. */
const RETRY_SCHEDULE = '200ms,200ms,200ms';
/** Longer than a retry wait and two of the deliverer's rounds (250 ms) together. */
const QUIET_MS = 800;

/**
 * Receivers that fail: each retry carries the first attempt's `webhook-id`; `Retry-After` and
 * timeouts are retried, a 3xx is a failure never followed, a 410 disables the destination.
 * The server's deliverer gives way to one the test starts on the same database, the same class
 * with the same webhook channel, whose guarded client waits ANSWER_TIMEOUT_MS for an answer.
 * The dialects run side by side (each its own server and receiver); the tests of one in turn.
 */
describe.concurrent.each(DIALECTS)('webhook retries on %s', (dialect) => {
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let poster: GuardedPoster;
  let deliverer: Deliverer;

  beforeAll(async () => {
    server = await startTestServer(dialect, {
      ALLOW_PRIVATE_DESTINATIONS: 'true',
      NOTIFY_RETRY_SCHEDULE: RETRY_SCHEDULE,
    });
    await server.ctx.deliverer.stop();
    poster = createGuardedPoster({ allowPrivate: true, timeoutMs: ANSWER_TIMEOUT_MS });
    deliverer = new Deliverer({
      db: server.ctx.db,
      dialect: server.ctx.database.dialect,
      log: pino({ enabled: false }),
      publicUrl: server.url,
      channels: { webhook: webhookChannel(poster) },
      retryScheduleMs: server.config.notifications.retryScheduleMs,
    });
    await deliverer.start();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await deliverer?.stop();
    poster?.close();
    await receiver?.close();
    await server?.close();
  });

  describe.sequential('one receiver, answers by path', () => {
    /** A tenant with a webhook on the receiver, path `path`, hearing issue.created. */
    async function webhook(path: string): Promise<{ t: Tenant; admin: string; id: string }> {
      const t = await server.tenant();
      const admin = (await createApiKey(server.ctx.db, t.accountId, 'admin', ['read', 'admin']))
        .key;
      const created = await call(`${server.url}/v1/dashboard/${t.projectId}/destinations`, {
        headers: bearer(admin),
        body: {
          type: 'webhook',
          url: receiver.url.replace('/hook', path),
          events: ['issue.created'],
        },
      });
      expect(created.status).toBe(201);
      return { t, admin, id: created.body.id };
    }

    const produce = (t: Tenant) =>
      enqueueNotifications(server.ctx.db, [{ projectId: t.projectId, type: 'issue.created' }]);
    const at = (path: string) => receiver.received.filter((r) => r.path === path);
    /** Events of the tenant's project not yet fanned out. */
    async function outboxOf(t: Tenant): Promise<number> {
      const rows = await server.ctx.db
        .selectFrom('notification_outbox')
        .select('id')
        .where('project_id', '=', t.projectId)
        .execute();
      return rows.length;
    }
    /** Messages made for a destination, whatever their state. */
    async function messagesTo(destinationId: string): Promise<number> {
      const rows = await server.ctx.db
        .selectFrom('notification_messages')
        .select('id')
        .where('destination_id', '=', destinationId)
        .execute();
      return rows.length;
    }
    /** The delivery log, attempts only (newest first). */
    async function deliveries(t: Tenant, admin: string, id: string): Promise<Delivery[]> {
      const res = await call<{ data: Delivery[] }>(
        `${server.url}/v1/dashboard/${t.projectId}/destinations/${id}/deliveries`,
        { headers: bearer(admin) },
      );
      return res.body.data.filter((d) => d.status !== 'pending');
    }

    it('503 with Retry-After, then a timeout, then 200: three attempts, one webhook-id', async () => {
      const path = `/retry-${dialect}`;
      const { t, admin, id } = await webhook(path);
      let seen = 0;
      receiver.setAnswer((request) => {
        if (request.path !== path) return { status: 200 };
        seen += 1;
        if (seen === 1) return { status: 503, headers: { 'retry-after': '1' } };
        if (seen === 2) return { status: 200, hang: true };
        return { status: 200 };
      });
      await produce(t);
      await receiver.waitFor(() => at(path).length >= 3, 40_000);
      const ids = new Set(at(path).map((r) => r.headers['webhook-id']));
      expect(ids.size).toBe(1);
      await expect
        .poll(async () =>
          (await deliveries(t, admin, id)).map((d) => [d.attempt, d.status, d.response_status]),
        )
        .toEqual([
          [3, 'succeeded', 200],
          [2, 'failed', null],
          [1, 'failed', 503],
        ]);
      const attempts = await deliveries(t, admin, id);
      expect(attempts[1]?.error).toMatch(/no answer within 1 s/);
      expect(new Set(attempts.map((a) => a.message_id))).toEqual(ids);
    }, 60_000);

    it('a 3xx is a failure and is not followed', async () => {
      const path = `/moved-${dialect}`;
      const { t, admin, id } = await webhook(path);
      receiver.setAnswer((request) =>
        request.path === path
          ? { status: 302, headers: { location: `/elsewhere-${dialect}` } }
          : { status: 200 },
      );
      await produce(t);
      await receiver.waitFor(() => at(path).length >= 1);
      await expect.poll(async () => (await deliveries(t, admin, id)).length).toBeGreaterThan(0);
      const [failed] = await deliveries(t, admin, id);
      expect(failed).toMatchObject({ status: 'failed', response_status: 302 });
      expect(failed?.error).toMatch(/redirect/);
      expect(at(`/elsewhere-${dialect}`)).toHaveLength(0);
    });

    it('a 410 disables the destination: status gone, nothing more is sent', async () => {
      const path = `/gone-${dialect}`;
      const { t, admin, id } = await webhook(path);
      receiver.setAnswer((request) => (request.path === path ? { status: 410 } : { status: 200 }));
      await produce(t);
      await receiver.waitFor(() => at(path).length >= 1);
      await expect
        .poll(async () => {
          const res = await call(`${server.url}/v1/dashboard/${t.projectId}/destinations/${id}`, {
            headers: bearer(admin),
          });
          return res.body.status;
        })
        .toBe('gone');
      await produce(t);
      // The new event fanned out to nobody: a gone destination is sent nothing more.
      await expect.poll(() => outboxOf(t)).toBe(0);
      expect(await messagesTo(id)).toBe(1);
      expect(at(path)).toHaveLength(1);
    });

    it('failing for a day pauses the destination (failing); resuming sends what waited', async () => {
      const path = `/failing-${dialect}`;
      const { t, admin, id } = await webhook(path);
      let healthy = false;
      receiver.setAnswer((request) =>
        request.path === path && !healthy ? { status: 500 } : { status: 200 },
      );
      // Its failures began a day ago: the next failure pauses it.
      await server.ctx.db
        .updateTable('notification_destinations')
        .set({ failing_since: Date.now() - 25 * 3_600_000 })
        .where('id', '=', id)
        .execute();
      await produce(t);
      const destination = () =>
        call(`${server.url}/v1/dashboard/${t.projectId}/destinations/${id}`, {
          headers: bearer(admin),
        });
      await expect.poll(async () => (await destination()).body.status).toBe('failing');
      expect((await destination()).body.last_error).toMatch(/500/);
      const failedAttempts = at(path).length;
      // Its message waits, due, and is not sent while the destination is paused.
      await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
      expect(at(path)).toHaveLength(failedAttempts);
      healthy = true;
      const resumed = await call(`${server.url}/v1/dashboard/${t.projectId}/destinations/${id}`, {
        method: 'PATCH',
        headers: bearer(admin),
        body: { paused: false },
      });
      expect(resumed.body.status).toBe('active');
      await receiver.waitFor(() => at(path).length > failedAttempts);
      expect(new Set(at(path).map((r) => r.headers['webhook-id'])).size).toBe(1);
    });
  });
});
