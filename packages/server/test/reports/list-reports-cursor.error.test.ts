import { ProblemDetails, ReportList } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../../test/harness/test-server.js';
import { createProject } from '../../src/projects/project.service.js';
import { bearer, call } from '../support/http.js';
import { seedReport } from '../support/seed.js';

describe.each(DIALECTS)('GET …/reports refuses bad cursors on %s', (dialect) => {
  let server: TestServer;
  let t: Tenant;
  let cursor: string;
  const get = (tenant: Tenant, query: string) =>
    call(`${server.url}/v1/dashboard/${tenant.projectId}/reports?${query}`, {
      headers: bearer(tenant.apiKey),
    });
  const refused = async (tenant: Tenant, query: string, field: string) => {
    const res = await get(tenant, query);
    expect(res.status, query).toBe(400);
    const problem = ProblemDetails.parse(res.body);
    expect(problem.code).toBe('invalid_query');
    expect(problem.errors?.map((e) => e.field)).toEqual([field]);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    return problem;
  };

  beforeAll(async () => {
    server = await startTestServer(dialect);
    t = await server.tenant();
    for (let i = 0; i < 3; i++)
      await seedReport(server.ctx.db, t.projectId, {
        outcome: 'failure',
        at: new Date(Date.UTC(2026, 0, 1, i)).toISOString(),
        tool_name: 'search',
      });
    const res = await get(t, 'tool_name=search&limit=1');
    cursor = encodeURIComponent(ReportList.parse(res.body).pagination.next_cursor!);
  });
  afterAll(() => server.close());

  it('refuses page and cursor together, naming page', async () => {
    const problem = await refused(t, `tool_name=search&page=2&cursor=${cursor}`, 'page');
    expect(problem.detail).toContain('cannot be combined with cursor');
  });

  it.each([
    ['not base64url', 'not*a*cursor'],
    ['not JSON', Buffer.from('hello').toString('base64url')],
    ['the wrong shape', Buffer.from('{"t":"x","i":"y","n":-1,"f":"z"}').toString('base64url')],
    ['empty', ''],
    ['far too long', 'a'.repeat(600)],
  ])('refuses a cursor that is %s, naming cursor', async (_what, value) => {
    const problem = await refused(t, `tool_name=search&cursor=${value}`, 'cursor');
    expect(problem.detail).toMatch(/^cursor /);
  });

  it('refuses a cursor with other filters than it was made for', async () => {
    for (const filters of [
      '',
      'tool_name=fetch',
      'tool_name=search&outcome=failure',
      'tool_name=search&from=2026-01-01',
    ])
      await refused(t, `${filters}&cursor=${cursor}`, 'cursor');
    // The same filters, another limit: accepted.
    expect((await get(t, `tool_name=search&limit=2&cursor=${cursor}`)).status).toBe(200);
  });

  it("refuses a cursor of another project of the same account, and 404s another account's", async () => {
    const { project } = await createProject(server.ctx.db, t.accountId, 'Sibling');
    const sibling = { ...t, projectId: project.id };
    await refused(sibling, `tool_name=search&cursor=${cursor}`, 'cursor');
    const stranger = await server.tenant();
    const res = await call(
      `${server.url}/v1/dashboard/${t.projectId}/reports?tool_name=search&cursor=${cursor}`,
      { headers: bearer(stranger.apiKey) },
    );
    expect(res.status).toBe(404);
  });
});
