import { AuthConfig, ProblemDetails, SessionInfo } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { call } from '../support/http.js';
import { browserFor, signUp } from '../support/session-client.js';

/** These tests sign up many accounts from one address: open sign-ups, no throttle in the way. */
const OPEN = { SIGNUPS: 'open', SIGNUPS_PER_ADDRESS: '1000' };

describe.each(DIALECTS)('dashboard accounts and sessions on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    // Hashes of 2^14 (an eighth of production's): two racing sign-ups are both past their
    // checks before the first is inserted, as they would be in production.
    server = await startTestServer(dialect, OPEN, { passwordHashing: { scryptN: 2 ** 14 } });
  });
  afterAll(() => server.close());

  it('signs up, reads the session, signs out, and the session is gone', async () => {
    const user = await signUp(server);
    expect(SessionInfo.parse(user.info)).toMatchObject({
      account: { email: user.email },
      signups: 'open',
      usage: { used: 0, limit: 1000 },
    });
    expect(user.info.usage.month).toBe(new Date().toISOString().slice(0, 7));

    const session = await user.call('/v1/auth/session');
    expect(session.status).toBe(200);
    expect(SessionInfo.parse(session.body)).toEqual(user.info);
    expect(session.headers.get('cache-control')).toBe('no-store');

    const out = await user.call('/v1/auth/signout', { method: 'POST' });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^debrief_session=; .*Max-Age=0/);

    const after = await user.call('/v1/auth/session');
    expect(after.status).toBe(401);
    expect(ProblemDetails.parse(after.body).code).toBe('not_authenticated');
    expect(after.body.signups).toBe('open');
  });

  it('signs in with the right password, with the email in any case and spacing', async () => {
    const user = await signUp(server);
    const res = await call(`${server.url}/v1/auth/signin`, {
      body: { email: `  ${user.email.toUpperCase()} `, password: user.password },
    });
    expect(res.status).toBe(200);
    const again = browserFor(server, user.email, user.password, res);
    expect(again.info.account.id).toBe(user.info.account.id);
    expect(again.cookie).not.toBe(user.cookie);
    // Two sessions side by side: signing one out leaves the other.
    await again.call('/v1/auth/signout', { method: 'POST' });
    expect((await user.call('/v1/auth/session')).status).toBe(200);
  });

  it('sets an HttpOnly, SameSite=Lax, Path=/ cookie, not Secure over plain http', async () => {
    const res = await call(`${server.url}/v1/auth/signup`, {
      body: { email: `c-${Date.now()}@example.test`, password: 'long enough pw' },
    });
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^debrief_session=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Path=/');
    expect(cookie).toMatch(/Max-Age=2592000/);
    expect(cookie).not.toContain('Secure');
  });

  it('stores only a hash of the session id', async () => {
    const user = await signUp(server);
    const id = user.cookie.split('=')[1]!;
    const rows = await server.ctx.db
      .selectFrom('sessions')
      .select(['id_hash'])
      .where('account_id', '=', user.info.account.id)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]!.id_hash).not.toContain(id);
  });

  it('tells the sign-in page whether sign-ups are open', async () => {
    const res = await call(`${server.url}/v1/auth/config`);
    expect(AuthConfig.parse(res.body)).toEqual({
      signups: 'open',
      first_signup: false,
      public_url: server.url,
    });
  });

  it('refuses a second account with the same email (409)', async () => {
    const user = await signUp(server);
    const res = await call(`${server.url}/v1/auth/signup`, {
      body: { email: user.email, password: 'another password' },
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('conflict');
  });

  it('validates sign-up fields (short password, bad email) with problem details', async () => {
    const res = await call(`${server.url}/v1/auth/signup`, {
      body: { email: 'not-an-email', password: 'short' },
    });
    expect(res.status).toBe(400);
    expect(ProblemDetails.parse(res.body).code).toBe('validation_failed');
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'email',
      'password',
    ]);
  });

  it('creates one account for two sign-ups of one email at once; the other gets 409', async () => {
    const body = { email: 'race@example.test', password: 'long enough pw' };
    const results = await Promise.all([
      call(`${server.url}/v1/auth/signup`, { body }),
      call(`${server.url}/v1/auth/signup`, { body }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
  });
});

describe('secure cookies under an https PUBLIC_URL', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { PUBLIC_URL: 'https://debrief.example.com' });
  });
  afterAll(() => server.close());

  it('marks the session cookie Secure', async () => {
    const res = await call(`${server.url}/v1/auth/signup`, {
      body: { email: 's@example.test', password: 'long enough pw' },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('set-cookie')).toContain('; Secure');
  });
});
