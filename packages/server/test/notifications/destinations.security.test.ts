import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { createApiKey } from '../../src/keys/key.service.js';
import { createGuardedPoster } from '../../src/notifications/guarded-post.js';
import { bearer, call } from '../support/http.js';
import { sessionFor } from '../support/session-client.js';
import { startReceiver } from './webhook-receiver.js';

/**
 * Who may manage destinations (an `admin` key, the dashboard session with its CSRF token), and
 * where they may point: not at a private, loopback or link-local address unless the operator
 * allows it, checked on the URL at create and on the address connected to at every delivery.
 */
describe.each(DIALECTS)('destinations security on %s', (dialect) => {
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await server.close();
  });

  const hook = { type: 'webhook', url: 'https://hooks.example.com/x', events: ['issue.created'] };

  it('refuses read and triage keys with 403 missing_scope naming admin', async () => {
    const t = await server.tenant();
    const triage = (await createApiKey(server.ctx.db, t.accountId, 'triage', ['read', 'triage']))
      .key;
    for (const key of [t.apiKey, triage]) {
      for (const [method, path, body] of [
        ['GET', 'destinations', undefined],
        ['POST', 'destinations', hook],
        ['DELETE', `destinations/${'0'.repeat(32)}`, undefined],
      ] as const) {
        const res = await call(`${server.url}/v1/dashboard/${t.projectId}/${path}`, {
          method,
          headers: bearer(key),
          ...(body ? { body } : {}),
        });
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body.code).toBe('missing_scope');
        expect(res.body.detail).toContain('"admin"');
      }
    }
  });

  it("lets an admin key and a dashboard session with CSRF manage them, not another account's", async () => {
    const t = await server.tenant();
    const other = await server.tenant();
    const admin = (await createApiKey(server.ctx.db, other.accountId, 'admin', ['admin'])).key;
    const foreign = await call(`${server.url}/v1/dashboard/${t.projectId}/destinations`, {
      headers: bearer(admin),
    });
    expect(foreign.status).toBe(404);
    const browser = await sessionFor(server, t.accountId);
    const created = await browser.call(`/v1/dashboard/${t.projectId}/destinations`, { body: hook });
    expect(created.status).toBe(201);
    const forged = await call(`${server.url}/v1/dashboard/${t.projectId}/destinations`, {
      body: hook,
      headers: { cookie: browser.cookie },
    });
    expect(forged.status).toBe(403);
    expect(forged.body.code).toBe('csrf_failed');
    const listed = await browser.call(`/v1/dashboard/${t.projectId}/destinations`);
    expect(listed.body.data.map((d: { id: string }) => d.id)).toEqual([created.body.id]);
    const removed = await browser.call(
      `/v1/dashboard/${t.projectId}/destinations/${created.body.id}`,
      { method: 'DELETE' },
    );
    expect(removed.status).toBe(204);
  });

  it('refuses a loopback, private or link-local URL without ALLOW_PRIVATE_DESTINATIONS', async () => {
    const t = await server.tenant();
    const admin = (await createApiKey(server.ctx.db, t.accountId, 'admin', ['admin'])).key;
    for (const url of [
      receiver.url,
      'http://localhost:8080/x',
      'http://10.1.2.3/x',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]:9/x',
      'http://[::ffff:127.0.0.1]/x',
    ]) {
      const res = await call(`${server.url}/v1/dashboard/${t.projectId}/destinations`, {
        headers: bearer(admin),
        body: { ...hook, url },
      });
      expect(res.status, url).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.detail).toContain('ALLOW_PRIVATE_DESTINATIONS');
    }
    expect(receiver.received).toHaveLength(0);
  });

  it('refuses at connection time an address that is private (DNS rebinding)', async () => {
    // A name that resolves to loopback passes the URL check; the connection is refused.
    const poster = createGuardedPoster({ allowPrivate: false });
    for (const url of [receiver.url.replace('127.0.0.1', 'localhost'), receiver.url]) {
      const result = await poster.postJson(url, '{}');
      expect(result.ok, url).toBe(false);
      expect(result.error).toMatch(/not allowed|private/i);
    }
    poster.close();
    expect(receiver.received).toHaveLength(0);
    const allowed = createGuardedPoster({ allowPrivate: true });
    expect((await allowed.postJson(receiver.url, '{}')).ok).toBe(true);
    allowed.close();
  });
});
