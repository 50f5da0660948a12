import { RedactionSettings, ReportList, SubmitReportResponse } from '@debrief/protocol';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../../test/harness/test-server.js';
import { bearer, call } from '../../support/http.js';
import { SECRET_FIXTURES } from '../../support/redaction-fixtures.js';
import { type Browser, signUp } from '../../support/session-client.js';

const fixture = (kind: string) => SECRET_FIXTURES.find((f) => f.kind === kind)!.secret;

/** Every stored text of the database (reports and the SQLite inbox), as one string. */
async function everythingStored(server: TestServer): Promise<string> {
  await server.ctx.reportWriter.flush();
  const { rows } = await sql<{
    details: string;
    tool_name: string | null;
    source: string | null;
    metadata: string | null;
  }>`select details, tool_name, source, metadata from reports`.execute(server.ctx.db);
  return JSON.stringify(rows);
}

describe.each(DIALECTS)('secrets are never stored, on %s', (dialect) => {
  let server: TestServer;
  let user: Browser;
  beforeAll(async () => {
    server = await startTestServer(dialect, { SIGNUPS: 'open' });
    user = await signUp(server);
  });
  afterAll(() => server.close());

  const submit = (body: Record<string, unknown>) =>
    call(`${server.url}/v1/reports`, { body: { outcome: 'failure', ...body } });
  const read = async (t: { projectId: string; apiKey: string }) => {
    const res = await call(`${server.url}/v1/dashboard/${t.projectId}/reports`, {
      headers: bearer(t.apiKey),
    });
    expect(res.status).toBe(200);
    return ReportList.parse(res.body);
  };

  it('redacts every field before storing, and counts the redactions in the answer and the read API', async () => {
    const t = await server.tenant();
    const secrets = [fixture('aws_access_key_id'), fixture('github_token'), fixture('jwt')];
    const res = await submit({
      ingest_key: t.ingestKey,
      details: `Deploy failed with key ${secrets[0]} and token ${secrets[1]}`,
      tool_name: `deploy ${fixture('npm_token')}`,
      source: 'ci',
      metadata: { auth: secrets[2], note: `jwt ${secrets[2]}`, retries: 2 },
    });
    expect(res.status).toBe(201);
    expect(SubmitReportResponse.parse(res.body).redactions).toBe(5);

    const [stored] = (await read(t)).reports;
    expect(stored).toMatchObject({
      details:
        'Deploy failed with key [REDACTED:aws_access_key_id] and token [REDACTED:github_token]',
      tool_name: 'deploy [REDACTED:npm_token]',
      source: 'ci',
      metadata: { auth: '[REDACTED:credential]', note: 'jwt [REDACTED:jwt]', retries: 2 },
      redactions: 5,
    });
    const raw = await everythingStored(server);
    for (const secret of [...secrets, fixture('npm_token')]) expect(raw).not.toContain(secret);
  });

  it('stores the report as it was sent, with redactions: 0, when there is nothing to redact', async () => {
    const t = await server.tenant();
    const details = `Report 01a1fe88f6c47000aa9b038a5831a8ee used ${t.ingestKey} at 2026-11-21T14:35:49Z`;
    const res = await submit({ ingest_key: t.ingestKey, details, tool_name: 'search' });
    expect(res.status).toBe(201);
    expect(res.body.redactions).toBe(0);
    const [stored] = (await read(t)).reports;
    expect(stored).toMatchObject({ details, tool_name: 'search', redactions: 0 });
  });

  it('redacts emails and phone numbers once the project turns the option on', async () => {
    const created = await user.call('/v1/console/projects', { body: { name: 'PII' } });
    const { project, ingest_key } = created.body as { project: { id: string }; ingest_key: string };
    const path = `/v1/console/projects/${project.id}/redaction`;
    const text = 'Mail jane@example.com or call +44 20 7946 0958.';

    expect(RedactionSettings.parse((await user.call(path)).body)).toEqual({
      redact_personal_data: false,
    });
    expect((await submit({ ingest_key, details: text })).body.redactions).toBe(0);

    const put = await user.call(path, { method: 'PATCH', body: { redact_personal_data: true } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ redact_personal_data: true });
    expect((await user.call(path)).body).toEqual({ redact_personal_data: true });

    const res = await submit({ ingest_key, details: text });
    expect(res.body.redactions).toBe(2);
    const raw = await everythingStored(server);
    expect(raw).toContain('Mail [REDACTED:email] or call [REDACTED:phone].');
  });

  it('changes the option only with the session and its CSRF token, and only for its owner', async () => {
    const created = await user.call('/v1/console/projects', { body: { name: 'CSRF' } });
    const { project } = created.body as { project: { id: string } };
    const path = `/v1/console/projects/${project.id}/redaction`;
    const noCsrf = await call(`${server.url}${path}`, {
      method: 'PATCH',
      body: { redact_personal_data: true },
      headers: { cookie: user.cookie },
    });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.code).toBe('csrf_failed');
    const stranger = await signUp(server);
    const other = await stranger.call(path, {
      method: 'PATCH',
      body: { redact_personal_data: true },
    });
    expect(other.status).toBe(404);
    const bad = await user.call(path, { method: 'PATCH', body: { redact_personal_data: 'yes' } });
    expect(bad.status).toBe(400);
    expect((await user.call(path)).body).toEqual({ redact_personal_data: false });
  });
});
