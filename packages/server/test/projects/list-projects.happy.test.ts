import { ProjectList } from '@debrief/protocol';
import { createProject } from '@debrief/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';

describe.each(DIALECTS)('GET /v1/projects on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  it("returns a bare array of the account's projects, oldest first", async () => {
    const t = await server.tenant();
    const second = await createProject(server.ctx.db, t.accountId, 'Second');
    await server.tenant(); // another account's project must not show
    const res = await call(`${server.url}/v1/projects`, { headers: bearer(t.apiKey) });
    expect(res.status).toBe(200);
    const projects = ProjectList.parse(res.body);
    expect(projects.map((p) => p.id)).toEqual([t.projectId, second.project.id]);
    expect(Object.keys(projects[0]!).sort()).toEqual(['created_at', 'id', 'name']);
  });
});
