import { ProblemDetails, ToolStats } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { IngestKeyCache } from '../../src/keys/ingest-key-cache.js';
import { createReportScreen } from '../../src/reports/screening/report-screen.js';
import { call } from '../support/http.js';
import { seedReport } from '../support/seed.js';
import { type Browser, signUp } from '../support/session-client.js';

/**
 * Unbounded labels would slow every read (100,000 distinct tool names make a tools answer of
 * megabytes). A project holds at most MAX_TOOL_NAMES_PER_PROJECT tool names and
 * MAX_SOURCES_PER_PROJECT sources (small here), and the tools endpoint answers a page.
 */
describe.each(DIALECTS)('caps on distinct labels on %s', (dialect) => {
  let server: TestServer;
  let user: Browser;
  beforeAll(async () => {
    server = await startTestServer(dialect, {
      MAX_TOOL_NAMES_PER_PROJECT: '3',
      MAX_SOURCES_PER_PROJECT: '2',
    });
    user = await signUp(server);
  });
  afterAll(() => server.close());

  const submit = (ingest_key: string, fields: { tool_name?: string; source?: string }) =>
    call(`${server.url}/v1/reports`, {
      body: { ingest_key, outcome: 'success', details: 'd', ...fields },
    });

  it('refuses a new tool name past the cap, with a 400 that says what to do, and stores nothing', async () => {
    const t = await server.tenant();
    for (const tool_name of ['a', 'b', 'c']) {
      expect((await submit(t.ingestKey, { tool_name })).status).toBe(201);
    }
    const res = await submit(t.ingestKey, { tool_name: 'd' });
    expect(res.status).toBe(400);
    const problem = ProblemDetails.parse(res.body);
    expect(problem.code).toBe('too_many_tool_names');
    expect(problem.detail).toContain('already has 3 distinct tool names');
    expect(problem.detail).toMatch(/already uses/);
    expect(problem.errors).toEqual([{ field: 'tool_name', message: expect.any(String) }]);

    // Names the project has, and no name at all, are still accepted at the cap.
    expect((await submit(t.ingestKey, { tool_name: 'b' })).status).toBe(201);
    expect((await submit(t.ingestKey, {})).status).toBe(201);
    // Another project has its own cap.
    const other = await server.tenant();
    expect((await submit(other.ingestKey, { tool_name: 'd' })).status).toBe(201);

    const list = await call(`${server.url}/v1/dashboard/${t.projectId}/reports`, {
      headers: { authorization: `Bearer ${t.apiKey}` },
    });
    expect(list.body.pagination.total).toBe(5);
    expect(list.body.reports.map((r: { tool_name: string }) => r.tool_name)).not.toContain('d');
  });

  it('refuses a new source past the cap', async () => {
    const t = await server.tenant();
    expect((await submit(t.ingestKey, { source: 'cli' })).status).toBe(201);
    expect((await submit(t.ingestKey, { source: 'mcp' })).status).toBe(201);
    const res = await submit(t.ingestKey, { source: 'web', tool_name: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('too_many_sources');
    expect((await submit(t.ingestKey, { source: 'cli', tool_name: 'x' })).status).toBe(201);
  });

  it('holds the cap under concurrent new names', async () => {
    const t = await server.tenant();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => submit(t.ingestKey, { tool_name: `tool-${i}` })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect(results.filter((r) => r.status === 400)).toHaveLength(9);
  });

  it('knows the stored names from the database (a restarted or second instance)', async () => {
    const t = await server.tenant();
    for (const tool_name of ['a', 'b', 'c']) await submit(t.ingestKey, { tool_name });
    const fresh = createReportScreen(
      server.ctx.db,
      server.config,
      new IngestKeyCache(server.ctx.db),
    );
    const input = { outcome: 'success' as const, details: 'd', source: null, metadata: null };
    await expect(fresh.screen(t.ingestKey, { ...input, tool_name: 'c' })).resolves.toMatchObject({
      redactions: 0,
    });
    await expect(fresh.screen(t.ingestKey, { ...input, tool_name: 'new' })).rejects.toMatchObject({
      code: 'too_many_tool_names',
    });
  });

  it('still accepts every name of a project that holds more than the cap from before it', async () => {
    const t = await server.tenant();
    const at = new Date().toISOString();
    for (let i = 0; i < 6; i++) {
      await seedReport(server.ctx.db, t.projectId, {
        outcome: 'success',
        at,
        tool_name: `old-${i}`,
      });
    }
    for (let i = 0; i < 6; i++) {
      expect((await submit(t.ingestKey, { tool_name: `old-${i}` })).status).toBe(201);
    }
    expect((await submit(t.ingestKey, { tool_name: 'brand-new' })).status).toBe(400);
  });

  it('answers the tools table a page at a time', async () => {
    const created = await user.call('/v1/console/projects', { body: { name: 'Many tools' } });
    const { project } = created.body as { project: { id: string } };
    // More tools than any page: stored before the cap (seeded), worst success rate first.
    const at = new Date().toISOString();
    for (let i = 0; i < 120; i++) {
      const outcome = i % 2 === 0 ? 'failure' : 'success';
      await seedReport(server.ctx.db, project.id, { outcome, at, tool_name: `t${100 + i}` });
    }
    const tools = async (query: string) => {
      const res = await user.call(`/v1/console/projects/${project.id}/tools?${query}`);
      expect(res.status, query).toBe(200);
      return ToolStats.parse(res.body);
    };
    const first = await tools('');
    expect(first.tools).toHaveLength(50);
    expect(first.pagination).toEqual({ page: 1, limit: 50, total: 120 });
    expect(first.tools.every((tool) => tool.success_rate === 0)).toBe(true);

    const capped = await tools('limit=1000');
    expect(capped.pagination.limit).toBe(100);
    expect(capped.tools).toHaveLength(100);

    const last = await tools('page=3');
    expect(last.tools).toHaveLength(20);
    expect(last.tools.every((tool) => tool.success_rate === 1)).toBe(true);
    const names = new Set(
      [...first.tools, ...(await tools('page=2')).tools, ...last.tools].map((x) => x.tool_name),
    );
    expect(names.size).toBe(120);

    // The same pages from counting the reports (a date range) as from the counters.
    expect(await tools('page=2&limit=30&from=2000-01-01')).toEqual(await tools('page=2&limit=30'));
    expect((await tools('page=9')).tools).toEqual([]);
    // Past the end, the total still says how many there are (no row carries it there).
    for (const query of ['page=9', 'page=9&from=2000-01-01'])
      expect((await tools(query)).pagination, query).toEqual({ page: 9, limit: 50, total: 120 });
    expect((await user.call(`/v1/console/projects/${project.id}/tools?limit=0`)).status).toBe(400);
  });
});
