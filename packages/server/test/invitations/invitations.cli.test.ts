import { CreatedInvitation, ProblemDetails } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../../test/harness/cli-process.js';
import {
  createTestDatabase,
  DIALECTS,
  type TestDatabase,
} from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { call } from '../support/http.js';
import { inviteToken } from '../support/session-client.js';

/** The `invite` command in this process: a child costs seconds to start. */
const cli = (args: string[], env: Record<string, string>) => runCli(args, env, 'in-process');

/** `debrief invite`: the operator's way to let one more person in, without the dashboard. */
describe.each(DIALECTS)('debrief invite on %s', { timeout: 90_000 }, (dialect) => {
  let database: TestDatabase;
  let server: TestServer;
  const PUBLIC_URL = 'https://debrief.example.com';
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    // The CLI and a server on one database, as an operator runs them.
    server = await startTestServer(dialect, {}, { databaseUrl: database.url });
    await server.tenant(); // the operator: further sign-ups need an invitation
  });
  afterAll(async () => {
    await server.close();
    await database.drop();
  });

  const signup = (email: string, invitation?: string) =>
    call(`${server.url}/v1/auth/signup`, {
      body: { email, password: 'correct horse battery', invitation },
    });

  it('prints a one-time link bound to the email that admits that account once', async () => {
    const res = await cli(['invite', '--email', 'Invited@Example.test', '--expires', '2d'], {
      DATABASE_URL: database.url,
      PUBLIC_URL,
    });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const url = res.stdout.trim();
    expect(url).toMatch(/^https:\/\/debrief\.example\.com\/signup\?invite=[A-Za-z0-9_-]{32}$/);
    const token = inviteToken(url);

    expect((await signup('someone-else@example.test', token)).status).toBe(403);
    const ok = await signup('invited@example.test', token);
    expect(ok.status).toBe(201);
    expect(ok.body.account.operator).toBe(false);
    const again = await signup('invited-2@example.test', token);
    expect(again.status).toBe(403);
    expect(ProblemDetails.parse(again.body).code).toBe('invalid_invitation');

    const row = await server.ctx.db
      .selectFrom('invitations')
      .select(['created_by', 'created_at', 'expires_at'])
      .executeTakeFirstOrThrow();
    expect(row.created_by).toBeNull();
    const hours =
      (new Date(row.expires_at).getTime() - new Date(row.created_at).getTime()) / 3_600_000;
    expect(hours).toBe(48);
  });

  it('--json prints the invitation; without --email anyone with the link may use it', async () => {
    const res = await cli(['invite', '--json', '--expires', '12h'], {
      DATABASE_URL: database.url,
      PUBLIC_URL,
    });
    expect(res.code).toBe(0);
    const invitation = CreatedInvitation.parse(JSON.parse(res.stdout));
    expect(invitation).toMatchObject({ email: null, status: 'pending' });
    expect(Date.parse(invitation.expires_at) - Date.parse(invitation.created_at)).toBe(
      12 * 3_600_000,
    );
    expect((await signup('anyone@example.test', inviteToken(invitation.url))).status).toBe(201);
  });

  it('refuses a bad --expires or --email with a message and exit code 1', async () => {
    const env = { DATABASE_URL: database.url };
    const expires = await cli(['invite', '--expires', 'forever'], env);
    expect(expires.code).toBe(1);
    expect(expires.stderr).toContain('--expires takes a duration such as 7d or 48h');
    const email = await cli(['invite', '--email', 'nope'], env);
    expect(email.code).toBe(1);
    expect(email.stderr).toContain('--email must be an email address');
  });
});
