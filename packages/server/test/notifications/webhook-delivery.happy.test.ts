import { Destination, NotificationPayload } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../../test/harness/test-server.js';
import { createApiKey } from '../../src/keys/key.service.js';
import { bearer, call } from '../support/http.js';
import { startReceiver, verify } from './webhook-receiver.js';

describe.each(DIALECTS)('webhook notifications on %s', (dialect) => {
  let server: TestServer;
  let t: Tenant;
  let admin: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    // Grouping in its thread, as `debrief serve` runs it: the outbox hook reaches it there.
    server = await startTestServer(
      dialect,
      { ALLOW_PRIVATE_DESTINATIONS: 'true' },
      { groupingThread: true },
    );
    t = await server.tenant();
    admin = (await createApiKey(server.ctx.db, t.accountId, 'admin', ['read', 'triage', 'admin']))
      .key;
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await server.close();
  });

  const base = () => `${server.url}/v1/dashboard/${t.projectId}`;

  it('a new issue and its regression each arrive once, signed, with the issue and report', async () => {
    const created = await call<Destination>(`${base()}/destinations`, {
      headers: bearer(admin),
      body: {
        type: 'webhook',
        url: receiver.url,
        events: ['issue.created', 'issue.regressed'],
        metadata_keys: ['client_name'],
      },
    });
    expect(created.status).toBe(201);
    Destination.parse(created.body);
    const secret = created.body.secret as string;
    expect(secret).toMatch(/^whsec_/);
    // The secret is answered once.
    const shown = await call(`${base()}/destinations/${created.body.id}`, {
      headers: bearer(admin),
    });
    expect(shown.status).toBe(200);
    expect(shown.body.secret).toBeUndefined();

    const details = `The export tool wrote an empty CSV file although the query matched rows ${'x'.repeat(1200)}`;
    const submitted = await call(`${server.url}/v1/reports`, {
      body: {
        ingest_key: t.ingestKey,
        outcome: 'failure',
        tool_name: 'export_csv',
        details,
        metadata: { client_name: 'claude-code', session_id: 'private-session' },
      },
    });
    expect(submitted.status).toBe(201);
    await receiver.waitFor((r) => r.length >= 1);
    const [first] = receiver.received;
    verify(secret, first!);
    const payload = NotificationPayload.parse(first!.json);
    expect(payload.type).toBe('issue.created');
    expect(first!.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(payload.data.project).toMatchObject({ id: t.projectId, name: t.projectName });
    expect(payload.data.project.url).toBe(`${server.url}/projects/${t.projectId}`);
    const issue = payload.data.issue as { id: string; url: string; title: string; outcome: string };
    expect(issue.url).toBe(`${server.url}/projects/${t.projectId}/issues/${issue.id}`);
    expect(issue.outcome).toBe('failure');
    const report = payload.data.report as { id: string; details: string; metadata: unknown };
    expect(report.id).toBe(submitted.body.id);
    expect(report.details.length).toBe(1000);
    expect(report.metadata).toEqual({ client_name: 'claude-code' });

    // Resolved, then a report of the same problem: it regresses.
    const triage = await call(`${base()}/issues/${issue.id}`, {
      method: 'PATCH',
      headers: bearer(admin),
      body: { status: 'resolved' },
    });
    expect(triage.status).toBe(200);
    await call(`${server.url}/v1/reports`, {
      body: { ingest_key: t.ingestKey, outcome: 'failure', tool_name: 'export_csv', details },
    });
    await receiver.waitFor((r) => r.length >= 2);
    const second = receiver.received[1]!;
    verify(secret, second);
    expect(second.json.type).toBe('issue.regressed');
    expect(second.json.data.issue.id).toBe(issue.id);
    expect(second.headers['webhook-id']).not.toBe(first!.headers['webhook-id']);

    // The log, once both attempts are written (the receiver may answer before they are).
    await expect
      .poll(async () => {
        const log = await call(`${base()}/destinations/${created.body.id}/deliveries`, {
          headers: bearer(admin),
        });
        return log.body.data.map((d: { type: string; status: string }) => [d.type, d.status]);
      })
      .toEqual([
        ['issue.regressed', 'succeeded'],
        ['issue.created', 'succeeded'],
      ]);
    // Nothing more came: each event once.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(2);
  });

  it('rotating the secret: both secrets sign for a day; "send a test" answers its attempt', async () => {
    const created = await call<Destination>(`${base()}/destinations`, {
      headers: bearer(admin),
      body: { type: 'webhook', url: `${receiver.url}?rotated`, events: ['issue.regressed'] },
    });
    const old = created.body.secret as string;
    const rotated = await call<Destination>(`${base()}/destinations/${created.body.id}`, {
      method: 'PATCH',
      headers: bearer(admin),
      body: { rotate_secret: true },
    });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(old);
    const before = receiver.received.length;
    const test = await call(`${base()}/destinations/${created.body.id}/test`, {
      headers: bearer(admin),
      body: {},
    });
    expect(test.status).toBe(200);
    expect(test.body).toMatchObject({ status: 'succeeded', response_status: 200, attempt: 1 });
    const request = receiver.received[before]!;
    expect(request.headers['webhook-id']).toBe(test.body.message_id);
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    verify(fresh, request);
    verify(old, request);
    expect(request.json).toMatchObject({ type: 'issue.regressed', data: { test: true } });
  });

  it('checks what each type needs', async () => {
    const cases = [
      { type: 'email', events: ['issue.created'] },
      { type: 'webhook', events: ['issue.created'] },
      { type: 'email', to: ['a@example.com'], url: receiver.url, events: ['issue.created'] },
      { type: 'webhook', url: receiver.url, events: ['nope'] },
    ];
    for (const body of cases) {
      const res = await call(`${base()}/destinations`, { headers: bearer(admin), body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const paused = await call<Destination>(`${base()}/destinations`, {
      headers: bearer(admin),
      body: { type: 'email', to: ['dev@example.com'], events: ['issue.created'] },
    });
    expect(paused.status).toBe(201);
    expect(paused.body.secret).toBeUndefined();
    const res = await call<Destination>(`${base()}/destinations/${paused.body.id}`, {
      method: 'PATCH',
      headers: bearer(admin),
      body: { paused: true },
    });
    expect(res.body.status).toBe('paused');
  });
});
