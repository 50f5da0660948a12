import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bootstrapCli,
  type CliServer,
  startCliServer,
} from '../../../../test/harness/cli-process.js';
import {
  createTestDatabase,
  DIALECTS,
  type TestDatabase,
} from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';
import { startReceiver } from './webhook-receiver.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
type Tenant = Awaited<ReturnType<typeof bootstrapCli>>;

const webhookIds = (requests: Receiver['received']) =>
  new Set(requests.map((r) => String(r.headers['webhook-id'])));

/**
 * A webhook destination on `issue.created`, then `events` failure reports of tools of their
 * own, each opening an issue; returns once every delivery has reached the (hanging) receiver.
 */
/** What every instance of these tests runs with: deliveries to 127.0.0.1, retried each second. */
const SETTINGS = { ALLOW_PRIVATE_DESTINATIONS: 'true', NOTIFY_RETRY_SCHEDULE: '1s,1s,1s,1s,1s' };

/**
 * A `debrief serve` child on the database, with a tenant bootstrapped for it (`admin` scope), and
 * the receiver set to hold every request until the child is killed.
 */
async function startHangingInstance(database: TestDatabase, receiver: Receiver, email: string) {
  const env = { ...SETTINGS, DATABASE_URL: database.url, FREE_TIER_MONTHLY_REPORTS: 'unlimited' };
  const tenant = await bootstrapCli(env, { email, project: 'Notify', scopes: 'read,admin' });
  receiver.setAnswer(() => ({ status: 200, hang: true }));
  return { tenant, server: await startCliServer(env) };
}

async function startDeliveries(url: string, tenant: Tenant, receiver: Receiver, events: number) {
  const created = await call(`${url}/v1/dashboard/${tenant.project.id}/destinations`, {
    headers: bearer(tenant.api_key),
    body: { type: 'webhook', url: receiver.url, events: ['issue.created'] },
  });
  expect(created.status).toBe(201);
  for (let i = 0; i < events; i += 1) {
    const res = await call(`${url}/v1/reports`, {
      body: {
        ingest_key: tenant.ingest_key,
        outcome: 'failure',
        tool_name: `tool_${i}`,
        details: `tool ${i} failed to open the file`,
      },
    });
    expect(res.status).toBe(201);
  }
  await receiver.waitFor((r) => r.length >= events, 30_000);
}

/** Each pending message's lease (its claim's end), read beside the servers. */
async function leases(databaseUrl: string): Promise<Map<string, number | null>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; lease_until: string | null }>(
      "select id, lease_until from notification_messages where status = 'pending'",
    );
    return new Map(
      rows.map((row) => [row.id, row.lease_until === null ? null : Number(row.lease_until)]),
    );
  } finally {
    await client.end();
  }
}

/**
 * After the kill: every notification sent before it comes again with its webhook-id, and after
 * de-duplication by webhook-id each of the `events` issues arrived once.
 */
async function expectResentOnce(
  receiver: Receiver,
  before: number,
  idsBefore: ReadonlySet<string>,
  events: number,
  timeoutMs: number,
) {
  await receiver.waitFor((r) => webhookIds(r.slice(before)).size >= events, timeoutMs);
  expect(webhookIds(receiver.received.slice(before))).toEqual(idsBefore);
  const issues = new Map<string, string>();
  for (const request of receiver.received) {
    issues.set(String(request.headers['webhook-id']), request.json.data.issue.id);
  }
  expect(new Set(issues.values()).size).toBe(events);
}

/**
 * `kill -9` of the server while its deliveries wait for the receiver loses none: every
 * notification arrives again with its `webhook-id`, so after de-duplication each event arrives
 * exactly once. On SQLite one process holds the file, so a restart frees the killed process's
 * claims at once; on PostgreSQL the other instance leaves them alone while their lease (60 s)
 * runs, and takes them over once it has run out. The process killed is the real `debrief
 * serve`; what restarts or takes over is an in-process server on the same database (the same
 * start-up and deliverer, without a second child's start).
 */
describe('notification delivery across kill -9 (sqlite)', () => {
  let database: TestDatabase;
  let server: CliServer | null = null;
  let restarted: TestServer | null = null;
  let receiver: Receiver;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite', { migrated: true });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await server?.kill('SIGKILL');
    await restarted?.close();
    await receiver.close();
    await database.drop();
  });

  it('delivers every event once after de-duplication by webhook-id', async () => {
    // Every request hangs until the kill: the deliveries are under way when it comes.
    const started = await startHangingInstance(database, receiver, 'notify@example.test');
    server = started.server;
    const { tenant } = started;
    const EVENTS = 6;
    await startDeliveries(server.url, tenant, receiver, EVENTS);
    const killed = await server.kill('SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    const before = receiver.received.length;
    const idsBefore = webhookIds(receiver.received);

    receiver.setAnswer(() => ({ status: 200 }));
    server = null;
    restarted = await startTestServer('sqlite', SETTINGS, { databaseUrl: database.url });
    // The same notifications, each with its webhook-id, and each issue once.
    await expectResentOnce(receiver, before, idsBefore, EVENTS, 30_000);
  }, 120_000);
});

describe.skipIf(!DIALECTS.includes('postgres'))(
  'notification delivery across kill -9 of one of two instances (postgres)',
  () => {
    let database: TestDatabase;
    let killed: CliServer | null = null;
    let other: TestServer | null = null;
    let receiver: Receiver;

    beforeAll(async () => {
      database = await createTestDatabase('postgres', { migrated: true });
      receiver = await startReceiver();
    });
    afterAll(async () => {
      await killed?.kill('SIGKILL');
      await other?.close();
      await receiver.close();
      await database.drop();
    });

    it('the other instance delivers every event of the killed one, once after de-duplication', async () => {
      const started = await startHangingInstance(database, receiver, 'notify-pg@example.test');
      killed = started.server;
      const { tenant } = started;
      const EVENTS = 4;
      // Every delivery is under way from the first instance (nothing else sends yet) when the
      // second starts beside it and the first is killed.
      await startDeliveries(killed.url, tenant, receiver, EVENTS);
      const idsBefore = webhookIds(receiver.received);
      expect(idsBefore.size).toBe(EVENTS);
      const claims = await leases(database.url);
      other = await startTestServer('postgres', SETTINGS, { databaseUrl: database.url });
      expect((await killed.kill('SIGKILL')).signal).toBe('SIGKILL');
      killed = null;
      const before = receiver.received.length;
      receiver.setAnswer(() => ({ status: 200 }));

      // The killed instance's claims hold for their lease (60 s): the other sends none of the
      // messages it still held, the ones whose lease is the one they had before the kill. (An
      // attempt that met its 10 s answer timeout on a loaded machine was put back for a retry.)
      const now = Date.now();
      const held = [...(await leases(database.url))].filter(
        ([id, lease]) => lease !== null && lease > now + 2000 && claims.get(id) === lease,
      );
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const heldIds = new Set(held.map(([id]) => id));
      const sentAgain = receiver.received.slice(before).map((r) => String(r.headers['webhook-id']));
      expect(sentAgain.filter((id) => heldIds.has(id))).toEqual([]);

      // The lease runs out (moved back in the database rather than waited for: 60 s).
      await other.ctx.db
        .updateTable('notification_messages')
        .set({ lease_until: Date.now() - 1 })
        .where('lease_until', 'is not', null)
        .execute();
      // The other instance then sends each message again.
      await expectResentOnce(receiver, before, idsBefore, EVENTS, 30_000);
      expect(other.ctx.deliverer.attempted).toBeGreaterThanOrEqual(EVENTS);
    }, 120_000);
  },
);
