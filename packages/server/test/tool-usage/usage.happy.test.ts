import { ToolRates, UsageResponse } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';

/** The UTC minute `minutesAgo` before now, as a sender names its window. */
function minute(minutesAgo = 0): string {
  const ms = Math.floor(Date.now() / 60_000) * 60_000 - minutesAgo * 60_000;
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

describe.each(DIALECTS)('call counts on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  const sendUsage = (body: unknown) => call(`${server.url}/v1/usage`, { body });
  const rates = (projectId: string, apiKey: string, query = '') =>
    call<ToolRates & { code?: string }>(`${server.url}/v1/dashboard/${projectId}/tools${query}`, {
      headers: bearer(apiKey),
    });

  it('after 1,000 calls with 10 errors the tools API shows 1,000 calls and a 1 % error rate', async () => {
    const t = await server.tenant();
    // Ten minutes of 100 calls, one error each, from one host.
    for (let i = 0; i < 10; i++) {
      const res = await sendUsage({
        ingest_key: t.ingestKey,
        window_start: minute(i + 1),
        instance: 'host-a',
        tools: { search_issues: { calls: 100, errors: 1 } },
      });
      expect(res.status).toBe(200);
      expect(UsageResponse.parse(res.body)).toEqual({
        ok: true,
        window_start: minute(i + 1),
        tools: 1,
      });
    }
    for (let i = 0; i < 4; i++) {
      const report = await call(`${server.url}/v1/reports`, {
        body: {
          ingest_key: t.ingestKey,
          outcome: 'failure',
          tool_name: 'search_issues',
          details: `page 2 repeats page 1 (#${i})`,
        },
      });
      expect(report.status).toBe(201);
    }
    const res = await rates(t.projectId, t.apiKey);
    expect(res.status).toBe(200);
    const body = ToolRates.parse(res.body);
    expect(body.tools).toEqual([
      {
        tool_name: 'search_issues',
        calls: 1000,
        errors: 10,
        error_rate: 0.01,
        reports: 4,
        reports_per_1000_calls: 4,
      },
    ]);
    expect(body.pagination).toEqual({ page: 1, limit: 50, total: 1 });
  });

  it('a resend of a window replaces what that sender said; another instance adds its own', async () => {
    const t = await server.tenant();
    const window = minute(3);
    const send = (instance: string | undefined, calls: number, errors: number) =>
      sendUsage({
        ingest_key: t.ingestKey,
        window_start: window,
        ...(instance ? { instance } : {}),
        tools: { fetch_page: { calls, errors } },
      });
    expect((await send('a', 10, 2)).status).toBe(200);
    expect((await send('a', 10, 2)).status).toBe(200);
    expect((await send('a', 12, 3)).status).toBe(200);
    expect((await send('b', 5, 0)).status).toBe(200);
    expect((await send(undefined, 1, 1)).status).toBe(200);
    // Concurrent resends of one window count once.
    await Promise.all(Array.from({ length: 8 }, () => send('c', 7, 1)));
    const tool = (await rates(t.projectId, t.apiKey)).body.tools[0]!;
    expect(tool).toMatchObject({
      tool_name: 'fetch_page',
      calls: 12 + 5 + 1 + 7,
      errors: 3 + 0 + 1 + 1,
    });
    expect(tool.reports).toBe(0);
    expect(tool.reports_per_1000_calls).toBe(0);
  });

  it.runIf(dialect === 'postgres')(
    'two instances on one database count concurrent resends of a window once',
    async () => {
      const other = await startTestServer(dialect, {}, { databaseUrl: server.config.databaseUrl });
      try {
        const t = await server.tenant();
        const body = {
          ingest_key: t.ingestKey,
          window_start: minute(4),
          instance: 'host-x',
          tools: { shared: { calls: 40, errors: 4 } },
        };
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            call(`${(i % 2 ? other : server).url}/v1/usage`, { body }),
          ),
        );
        expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
        const tool = (await rates(t.projectId, t.apiKey)).body.tools[0]!;
        expect(tool).toMatchObject({ tool_name: 'shared', calls: 40, errors: 4 });
      } finally {
        await other.close();
      }
    },
  );

  it('counts in range to the minute, and lists tools with reports but no counts with null rates', async () => {
    const t = await server.tenant();
    await sendUsage({
      ingest_key: t.ingestKey,
      window_start: minute(30),
      tools: { old_tool: { calls: 50, errors: 5 } },
    });
    await sendUsage({
      ingest_key: t.ingestKey,
      window_start: minute(2),
      tools: { old_tool: { calls: 20, errors: 0 } },
    });
    await call(`${server.url}/v1/reports`, {
      body: { ingest_key: t.ingestKey, outcome: 'confusing', tool_name: 'uncounted', details: 'x' },
    });
    const since = encodeURIComponent(minute(10));
    const body = ToolRates.parse((await rates(t.projectId, t.apiKey, `?from=${since}`)).body);
    expect(body.tools).toEqual([
      {
        tool_name: 'old_tool',
        calls: 20,
        errors: 0,
        error_rate: 0,
        reports: 0,
        reports_per_1000_calls: 0,
      },
      {
        tool_name: 'uncounted',
        calls: null,
        errors: null,
        error_rate: null,
        reports: 1,
        reports_per_1000_calls: null,
      },
    ]);
    const all = ToolRates.parse((await rates(t.projectId, t.apiKey, '?tool_name=old_tool')).body);
    expect(all.tools).toMatchObject([{ tool_name: 'old_tool', calls: 70, errors: 5 }]);
  });

  it('compares a tool before and after a server_version change', async () => {
    const t = await server.tenant();
    await sendUsage({
      ingest_key: t.ingestKey,
      window_start: minute(20),
      server_version: '2.2.0',
      tools: { search: { calls: 100, errors: 20 } },
    });
    await sendUsage({
      ingest_key: t.ingestKey,
      window_start: minute(5),
      server_version: '2.3.0',
      tools: { search: { calls: 200, errors: 2 } },
    });
    await call(`${server.url}/v1/reports`, {
      body: {
        ingest_key: t.ingestKey,
        outcome: 'failure',
        tool_name: 'search',
        details: 'cursor ignored',
        metadata: { server_version: '2.2.0' },
      },
    });
    const body = ToolRates.parse(
      (await rates(t.projectId, t.apiKey, '?tool_name=search&by=server_version')).body,
    );
    expect(body.versions?.map(({ first_seen, last_seen, ...v }) => v)).toEqual([
      {
        server_version: '2.2.0',
        calls: 100,
        errors: 20,
        error_rate: 0.2,
        reports: 1,
        reports_per_1000_calls: 10,
      },
      {
        server_version: '2.3.0',
        calls: 200,
        errors: 2,
        error_rate: 0.01,
        reports: 0,
        reports_per_1000_calls: 0,
      },
    ]);
    const refused = await rates(t.projectId, t.apiKey, '?by=server_version');
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('invalid_query');
  });

  it('a project of another account is a 404', async () => {
    const a = await server.tenant();
    const b = await server.tenant();
    const res = await rates(a.projectId, b.apiKey);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('project_not_found');
  });
});
