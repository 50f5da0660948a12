import { createHash } from 'node:crypto';
import { ProblemDetails } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';
import { type Browser, sessionFor, signUp } from '../support/session-client.js';

// Sign-ins hash with scrypt at 128 MiB: seconds each on a loaded 2-core machine.
describe.each(DIALECTS)('dashboard auth security on %s', { timeout: 90_000 }, (dialect) => {
  let server: TestServer;
  let user: Browser;
  beforeAll(async () => {
    // Several accounts sign up here from one address.
    server = await startTestServer(dialect, { SIGNUPS: 'open', SIGNUPS_PER_ADDRESS: '1000' });
    user = await signUp(server);
  });
  afterAll(() => server.close());

  const signin = (email: string, password: string, headers: Record<string, string> = {}) =>
    call(`${server.url}/v1/auth/signin`, { body: { email, password }, headers });

  it('answers a wrong password and an unknown email the same way', async () => {
    const wrong = await signin(user.email, 'not the password');
    const unknown = await signin('nobody-here@example.test', 'not the password');
    expect(wrong.status).toBe(401);
    expect(ProblemDetails.parse(wrong.body).code).toBe('invalid_credentials');
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.headers.get('set-cookie')).toBeNull();
  });

  it('refuses sign-in for 429 with Retry-After after 5 failures, even with the right password', async () => {
    const victim = await signUp(server, 'the real password');
    for (let i = 0; i < 5; i++) {
      expect((await signin(victim.email, `guess ${i}`)).status).toBe(401);
    }
    const limited = await signin(victim.email, 'the real password');
    expect(limited.status).toBe(429);
    expect(ProblemDetails.parse(limited.body).code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // The other account signing in from the same address is not affected.
    expect((await signin(user.email, user.password)).status).toBe(200);
  });

  it('refuses state-changing console requests without the right CSRF token', async () => {
    const missing = await call(`${server.url}/v1/console/projects`, {
      body: { name: 'x' },
      headers: { cookie: user.cookie },
    });
    expect(missing.status).toBe(403);
    expect(ProblemDetails.parse(missing.body).code).toBe('csrf_failed');
    // One character changed (to one it is not, or the token would still be right).
    const token = user.info.csrf_token;
    const wrongToken = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const wrong = await user.call('/v1/console/projects', {
      body: { name: 'x' },
      headers: { 'x-csrf-token': wrongToken },
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body.code).toBe('csrf_failed');
    const other = await signUp(server);
    const foreign = await user.call('/v1/console/projects', {
      body: { name: 'x' },
      headers: { 'x-csrf-token': other.info.csrf_token },
    });
    expect(foreign.status).toBe(403);
    const list = await user.call('/v1/console/projects');
    expect(list.body).toEqual([]);
  });

  it('refuses sign-out without the CSRF token and keeps the session', async () => {
    const res = await call(`${server.url}/v1/auth/signout`, {
      method: 'POST',
      headers: { cookie: user.cookie },
    });
    expect(res.status).toBe(403);
    expect((await user.call('/v1/auth/session')).status).toBe(200);
  });

  it('refuses cross-site sign-in and sign-up, accepts same-origin', async () => {
    const crossSite: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'https://evil.example' },
      { origin: 'null' },
    ];
    for (const headers of crossSite) {
      const res = await signin(user.email, user.password, headers);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('csrf_failed');
      const up = await call(`${server.url}/v1/auth/signup`, {
        body: { email: 'x@example.test', password: 'long enough' },
        headers,
      });
      expect(up.status).toBe(403);
    }
    const ok = await signin(user.email, user.password, {
      origin: server.url,
      'sec-fetch-site': 'same-origin',
    });
    expect(ok.status).toBe(200);
  });

  it('needs a live session on console routes', async () => {
    const none = await call(`${server.url}/v1/console/projects`);
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('not_authenticated');
    const forged = await call(`${server.url}/v1/console/projects`, {
      headers: { cookie: `debrief_session=${'A'.repeat(43)}` },
    });
    expect(forged.status).toBe(401);
    const t = await server.tenant();
    const session = await sessionFor(server, t.accountId);
    expect((await session.call('/v1/console/projects')).status).toBe(200);
    // The instance now holds the session (sessions/session.service.ts sessionCache): its
    // expiry is checked on every use all the same.
    const idHash = createHash('sha256')
      .update(session.cookie.replace('debrief_session=', ''))
      .digest('hex');
    const held = server.ctx.sessions.peek(idHash);
    expect(held).toBeTruthy();
    server.ctx.sessions.set(idHash, { ...held!, expires_at: new Date(Date.now() - 1000) });
    expect((await session.call('/v1/console/projects')).status).toBe(401);
    // And a session expired in the database is refused once read again.
    await server.ctx.db
      .updateTable('sessions')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('account_id', '=', t.accountId)
      .execute();
    server.ctx.sessions.delete(idHash);
    expect((await session.call('/v1/console/projects')).status).toBe(401);
  });

  it('keeps the Bearer errors of the read API, and the Bearer key wins over a cookie', async () => {
    const t = await server.tenant();
    const reports = `${server.url}/v1/dashboard/${t.projectId}/reports`;
    const none = await call(reports);
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('missing_api_key');
    const session = await sessionFor(server, t.accountId);
    const bad = await call(reports, {
      headers: { ...bearer('wk_sk_notreal'), cookie: session.cookie },
    });
    expect(bad.status).toBe(401);
    expect(bad.body.code).toBe('invalid_api_key');
    const ingest = await call(reports, { headers: bearer(t.ingestKey) });
    expect(ingest.body.code).toBe('ingest_key_cannot_read');
    expect((await session.call(`/v1/dashboard/${t.projectId}/reports`)).status).toBe(200);
  });
});
