import { ProblemDetails } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { type Browser, sessionFor } from '../support/session-client.js';

describe.each(DIALECTS)('dashboard console API errors on %s', (dialect) => {
  let server: TestServer;
  let user: Browser;
  beforeAll(async () => {
    server = await startTestServer(dialect);
    user = await sessionFor(server, (await server.tenant()).accountId);
  });
  afterAll(() => server.close());

  it("answers 404 project_not_found for another account's project, everywhere", async () => {
    const other = await server.tenant();
    const id = other.projectId;
    const attempts = [
      user.call(`/v1/console/projects/${id}`, { method: 'PATCH', body: { name: 'mine now' } }),
      user.call(`/v1/console/projects/${id}/ingest-key`),
      user.call(`/v1/console/projects/${id}/ingest-key/rotate`, { method: 'POST' }),
      user.call(`/v1/console/projects/${id}/timeseries`),
      user.call(`/v1/console/projects/${id}/tools`),
      user.call(`/v1/console/projects/${id}/sources`),
      user.call(`/v1/console/projects/${id}/integrate`),
      user.call(`/v1/dashboard/${id}/reports`),
      user.call('/v1/console/projects/not-an-id/tools'),
      user.call('/v1/console/projects/not-an-id/sources'),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(404);
      expect(ProblemDetails.parse(res.body).code).toBe('project_not_found');
      expect(JSON.stringify(res.body)).not.toContain(other.ingestKey);
    }
    const names = await server.ctx.db
      .selectFrom('projects')
      .select('name')
      .where('id', '=', id)
      .execute();
    expect(names[0]!.name).toBe(other.projectName);
  });

  it("cannot revoke another account's API key", async () => {
    const other = await server.tenant();
    const [key] = await server.ctx.db
      .selectFrom('api_keys')
      .select('id')
      .where('account_id', '=', other.accountId)
      .execute();
    const res = await user.call(`/v1/console/api-keys/${key!.id}`, { method: 'DELETE' });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  it('validates names: required, trimmed, 1 to 100 characters', async () => {
    for (const body of [{}, { name: '   ' }, { name: 'x'.repeat(101) }, { name: 42 }]) {
      const res = await user.call('/v1/console/projects', { body });
      expect(res.status).toBe(400);
      expect(ProblemDetails.parse(res.body).code).toBe('validation_failed');
      expect(res.body.errors[0].field).toBe('name');
    }
    const array = await user.call('/v1/console/api-keys', { body: ['x'] });
    expect(array.status).toBe(400);
    expect(array.body.code).toBe('invalid_body');
    const ok = await user.call('/v1/console/projects', { body: { name: 'x'.repeat(100) } });
    expect(ok.status).toBe(201);
  });

  it('validates stats queries', async () => {
    const { projectId } = await server.tenant();
    const mine = await user.call('/v1/console/projects', { body: { name: 'Stats' } });
    const id = mine.body.project.id as string;
    expect(projectId).not.toBe(id);
    for (const query of [
      'from=yesterday',
      'from=2026-02-01&to=2026-01-01',
      'from=2020-01-01&to=2026-01-01',
      'tool_name=a&tool_name=b',
    ]) {
      const res = await user.call(`/v1/console/projects/${id}/timeseries?${query}`);
      expect(res.status, query).toBe(400);
      expect(ProblemDetails.parse(res.body).code).toBe('invalid_query');
    }
    const tools = await user.call(`/v1/console/projects/${id}/tools?to=someday`);
    expect(tools.status).toBe(400);
    for (const query of ['to=someday', 'tool_name=a&tool_name=b', `tool_name=${'x'.repeat(201)}`]) {
      const sources = await user.call(`/v1/console/projects/${id}/sources?${query}`);
      expect(sources.status, query).toBe(400);
      expect(ProblemDetails.parse(sources.body).code).toBe('invalid_query');
    }
  });

  it("validates the integrate page's skill name like a report's source", async () => {
    const created = await user.call('/v1/console/projects', { body: { name: 'Integrate' } });
    const id = created.body.project.id as string;
    for (const query of [`source=${'x'.repeat(201)}`, 'source=a%00b', 'source=a&source=b']) {
      const res = await user.call(`/v1/console/projects/${id}/integrate?${query}`);
      expect(res.status, query).toBe(400);
      const problem = ProblemDetails.parse(res.body);
      expect(problem.code).toBe('invalid_query');
      expect(problem.errors?.map((e) => e.field)).toContain('source');
    }
    const longest = await user.call(
      `/v1/console/projects/${id}/integrate?source=${'x'.repeat(200)}`,
    );
    expect(longest.status).toBe(200);
  });
});
