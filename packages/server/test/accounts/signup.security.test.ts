import {
  AuthConfig,
  CreatedInvitation,
  InvitationList,
  ProblemDetails,
  SessionInfo,
} from '@debrief/protocol';
import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest, migrations } from '../../src/db/migrate.js';
import { call } from '../support/http.js';
import {
  type Browser,
  browserFor,
  inviteToken,
  sessionFor,
  signUp,
} from '../support/session-client.js';

/**
 * Against a sign-up flood: by default only the first sign-up is free (it creates
 * the operator); every later one needs an invitation, which admits one account, once.
 */

/** Sign-up over HTTP, answer as it comes (signUp() throws on anything but 201). */
const trySignup = (server: TestServer, body: Record<string, unknown>) =>
  call(`${server.url}/v1/auth/signup`, {
    body: { password: 'correct horse battery', ...body },
  });

const newEmail = (() => {
  let n = 0;
  return (tag = 'u') => `${tag}-${Date.now().toString(36)}-${n++}@example.test`;
})();

describe.each(DIALECTS)('sign-up by invitation (the default) on %s', (dialect) => {
  let server: TestServer;
  let operator: Browser;
  beforeAll(async () => {
    // The throttle is not what this block tests: every sign-up here comes from 127.0.0.1.
    // Hashes of 2^14 (an eighth of production's): racing sign-ups are all past their checks
    // before the first is inserted, as they would be in production.
    server = await startTestServer(
      dialect,
      { SIGNUPS_PER_ADDRESS: '1000' },
      { passwordHashing: { scryptN: 2 ** 14 } },
    );
  });
  afterAll(() => server.close());

  const invite = async (body: Record<string, unknown> = {}) => {
    const res = await operator.call('/v1/console/invitations', { body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    return CreatedInvitation.parse(res.body);
  };

  it('makes one of racing first sign-ups the operator, then refuses sign-ups without an invitation', async () => {
    const before = AuthConfig.parse((await call(`${server.url}/v1/auth/config`)).body);
    expect(before).toMatchObject({ signups: 'invite', first_signup: true });
    const signedOut = await call(`${server.url}/v1/auth/session`);
    expect(signedOut.body).toMatchObject({ signups: 'invite', first_signup: true });

    // Four first sign-ups racing: exactly one becomes the operator; the others are refused,
    // not let in as members.
    const emails = Array.from({ length: 4 }, () => newEmail('first'));
    const results = await Promise.all(emails.map((email) => trySignup(server, { email })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 403, 403, 403]);
    for (const r of results.filter((r) => r.status === 403))
      expect(r.body.code).toBe('signups_closed');
    const accounts = await server.ctx.db
      .selectFrom('accounts')
      .select(['email', 'is_operator'])
      .execute();
    const winner = results.findIndex((r) => r.status === 201);
    expect(accounts).toEqual([{ email: emails[winner], is_operator: 1 }]);
    operator = browserFor(server, emails[winner]!, 'correct horse battery', results[winner]!);
    expect(SessionInfo.parse(operator.info).account.operator).toBe(true);
    expect((await call(`${server.url}/v1/auth/config`)).body.first_signup).toBe(false);

    const second = await trySignup(server, { email: newEmail() });
    expect(second.status).toBe(403);
    const problem = ProblemDetails.parse(second.body);
    expect(problem.code).toBe('signups_closed');
    expect(problem.detail).toMatch(/invitation link/);
    expect(problem.detail).toMatch(/debrief invite/);
    expect(second.headers.get('set-cookie')).toBeNull();
    // An unknown token is refused as well, before anything else happens.
    const forged = await trySignup(server, { email: newEmail(), invitation: 'A'.repeat(32) });
    expect(forged.status).toBe(403);
    expect(ProblemDetails.parse(forged.body).code).toBe('invalid_invitation');
  });

  it('admits one account with an invitation, once; the token cannot be reused', async () => {
    const created = await invite();
    expect(created).toMatchObject({ email: null, status: 'pending', used_at: null });
    expect(created.url.startsWith(`${server.url}/signup?invite=`)).toBe(true);
    const week = Date.parse(created.expires_at) - Date.parse(created.created_at);
    expect(week).toBe(7 * 24 * 3_600_000);
    const token = inviteToken(created.url);

    const guest = await signUp(server, 'guest password', { invitation: token });
    expect(guest.info.account.operator).toBe(false);
    expect((await guest.call('/v1/auth/session')).status).toBe(200);

    const again = await trySignup(server, { email: newEmail(), invitation: token });
    expect(again.status).toBe(403);
    expect(ProblemDetails.parse(again.body).code).toBe('invalid_invitation');
    expect(again.body.detail).toMatch(/already used/);

    const list = InvitationList.parse((await operator.call('/v1/console/invitations')).body);
    const row = list.find((i) => i.id === created.id);
    expect(row?.status).toBe('used');
    expect(row?.used_at).not.toBeNull();
    // The token is in the creating response only, never stored or listed.
    expect(JSON.stringify(list)).not.toContain(token);
    const stored = await server.ctx.db.selectFrom('invitations').selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(token);
  });

  it('refuses an expired invitation and a revoked one', async () => {
    const expiring = await invite({ expires_in_hours: 1 });
    await server.ctx.db
      .updateTable('invitations')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', expiring.id)
      .execute();
    const late = await trySignup(server, {
      email: newEmail(),
      invitation: inviteToken(expiring.url),
    });
    expect(late.status).toBe(403);
    expect(late.body).toMatchObject({ code: 'invalid_invitation' });
    expect(late.body.detail).toMatch(/expired/);

    const revoked = await invite();
    expect(
      (await operator.call(`/v1/console/invitations/${revoked.id}`, { method: 'DELETE' })).status,
    ).toBe(204);
    // Revoking twice is harmless.
    expect(
      (await operator.call(`/v1/console/invitations/${revoked.id}`, { method: 'DELETE' })).status,
    ).toBe(204);
    const refused = await trySignup(server, {
      email: newEmail(),
      invitation: inviteToken(revoked.url),
    });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/revoked/);

    const list = InvitationList.parse((await operator.call('/v1/console/invitations')).body);
    expect(list.find((i) => i.id === expiring.id)?.status).toBe('expired');
    expect(list.find((i) => i.id === revoked.id)?.status).toBe('revoked');
    // Newest first.
    expect(list[0]?.id).toBe(revoked.id);
  });

  it('cannot revoke a used invitation (409) or an unknown one (404)', async () => {
    const used = await invite();
    await signUp(server, 'pw long enough', { invitation: inviteToken(used.url) });
    const res = await operator.call(`/v1/console/invitations/${used.id}`, { method: 'DELETE' });
    expect(res.status).toBe(409);
    expect(ProblemDetails.parse(res.body).code).toBe('conflict');
    const unknown = await operator.call(`/v1/console/invitations/${'0'.repeat(32)}`, {
      method: 'DELETE',
    });
    expect(unknown.status).toBe(404);
  });

  it('binds an invitation to its email when one is given (any case)', async () => {
    const email = newEmail('bound');
    const created = await invite({ email: `  ${email.toUpperCase()} ` });
    expect(created.email).toBe(email);
    const token = inviteToken(created.url);
    const other = await trySignup(server, { email: newEmail(), invitation: token });
    expect(other.status).toBe(403);
    expect(other.body.detail).toMatch(/another email address/);
    const right = await trySignup(server, { email: email.toUpperCase(), invitation: token });
    expect(right.status).toBe(201);
    expect(right.body.account.email).toBe(email);
  });

  it('validates invitation fields', async () => {
    const res = await operator.call('/v1/console/invitations', {
      body: { email: 'nope', expires_in_hours: 0 },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'email',
      'expires_in_hours',
    ]);
  });

  it('keeps an invitation unused when its sign-up fails (email taken)', async () => {
    const created = await invite();
    const taken = await trySignup(server, {
      email: operator.email,
      invitation: inviteToken(created.url),
    });
    expect(taken.status).toBe(409);
    const list = InvitationList.parse((await operator.call('/v1/console/invitations')).body);
    expect(list.find((i) => i.id === created.id)?.status).toBe('pending');
  });

  it('lets exactly one of two sign-ups racing with one invitation in', async () => {
    const token = inviteToken((await invite()).url);
    const results = await Promise.all(
      [newEmail('race'), newEmail('race')].map((email) =>
        trySignup(server, { email, invitation: token }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 403]);
    const loser = results.find((r) => r.status === 403)!;
    expect(loser.body.code).toBe('invalid_invitation');
  });

  it('lets only the operator create, list and revoke invitations', async () => {
    const t = await server.tenant();
    const member = await sessionFor(server, t.accountId);
    expect(member.info.account.operator).toBe(false);
    const created = await invite();
    for (const [path, init] of [
      ['/v1/console/invitations', { body: {} }],
      ['/v1/console/invitations', {}],
      [`/v1/console/invitations/${created.id}`, { method: 'DELETE' }],
    ] as const) {
      const res = await member.call(path, init);
      expect(res.status, `${path} ${JSON.stringify(init)}`).toBe(403);
      expect(ProblemDetails.parse(res.body).code).toBe('forbidden');
    }
    // Nothing was revoked by the refused call.
    const list = InvitationList.parse((await operator.call('/v1/console/invitations')).body);
    expect(list.find((i) => i.id === created.id)?.status).toBe('pending');
    // Without a session, 401; the operator without the CSRF token, 403 csrf_failed.
    expect((await call(`${server.url}/v1/console/invitations`)).status).toBe(401);
    const noCsrf = await call(`${server.url}/v1/console/invitations`, {
      body: {},
      headers: { cookie: operator.cookie },
    });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.code).toBe('csrf_failed');
  });
});

describe.each(DIALECTS)('SIGNUPS=open on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, { SIGNUPS: 'open', SIGNUPS_PER_ADDRESS: '1000' });
  });
  afterAll(() => server.close());

  it('lets anyone sign up; the first account is still the only operator', async () => {
    const first = await signUp(server);
    const second = await signUp(server);
    expect(first.info.account.operator).toBe(true);
    expect(second.info.account.operator).toBe(false);
    expect(second.info.signups).toBe('open');
    expect(AuthConfig.parse((await call(`${server.url}/v1/auth/config`)).body)).toMatchObject({
      signups: 'open',
      first_signup: false,
    });
  });
});

describe.each(DIALECTS)('SIGNUPS=closed on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, { SIGNUPS: 'closed' });
  });
  afterAll(() => server.close());

  it('needs an invitation even for the first account, which becomes the operator', async () => {
    expect((await call(`${server.url}/v1/auth/config`)).body).toMatchObject({
      signups: 'closed',
      first_signup: false,
    });
    const refused = await trySignup(server, { email: newEmail() });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('signups_closed');
    // As `debrief invite` makes it: no operator behind it yet.
    const { createInvitation } = await import('../../src/invitations/invitation.service.js');
    const created = await createInvitation(server.ctx.db, {
      publicUrl: server.url,
      createdBy: null,
    });
    const first = await signUp(server, 'pw long enough', { invitation: inviteToken(created.url) });
    expect(first.info.account.operator).toBe(true);
  });

  it('says so to the sign-in page, and still signs in accounts made by the operator', async () => {
    const signedOut = await call(`${server.url}/v1/auth/session`);
    expect(signedOut.status).toBe(401);
    expect(signedOut.body).toMatchObject({ signups: 'closed', first_signup: false });
    const t = await server.tenant();
    const member = await sessionFor(server, t.accountId);
    expect(member.info.signups).toBe('closed');
  });
});

describe.each(DIALECTS)('an existing database migrated to 0007 on %s', (dialect) => {
  it('makes its oldest account the operator, and only that one', async () => {
    const test = await createTestDatabase(dialect);
    const database = openDatabase(test.url);
    try {
      const all = migrations(database);
      const before = Object.fromEntries(
        Object.entries(all).filter(([name]) => name < '0007-invitations'),
      );
      const migrator = new Migrator({
        db: database.kysely,
        provider: { getMigrations: async () => before },
      });
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      // Inserted newest first, so neither insertion order nor id order decides.
      const rows = [
        {
          id: 'c'.repeat(32),
          email: 'newest@example.test',
          created_at: '2026-03-01T00:00:00.000Z',
        },
        {
          id: 'a'.repeat(32),
          email: 'middle@example.test',
          created_at: '2026-02-01T00:00:00.000Z',
        },
        {
          id: 'b'.repeat(32),
          email: 'oldest@example.test',
          created_at: '2026-01-01T00:00:00.000Z',
        },
      ];
      for (const row of rows) {
        await sql`insert into accounts (id, email, created_at)
          values (${row.id}, ${row.email}, ${row.created_at})`.execute(database.kysely);
      }
      expect(await migrateToLatest(database)).toContain('0007-invitations');
      const operators = await database.kysely
        .selectFrom('accounts')
        .select('email')
        .where('is_operator', '=', 1)
        .execute();
      expect(operators).toEqual([{ email: 'oldest@example.test' }]);
      // The index allows no second operator.
      await expect(
        database.kysely
          .updateTable('accounts')
          .set({ is_operator: 1 })
          .where('email', '=', 'newest@example.test')
          .execute(),
      ).rejects.toThrow();
    } finally {
      await database.close();
      await test.drop();
    }
  });
});
