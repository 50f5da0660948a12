import { ReportList } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';
import { seedReport } from '../support/seed.js';

describe.each(DIALECTS)('GET /v1/dashboard/{projectId}/reports on %s', (dialect) => {
  let server: TestServer;
  let t: Tenant;
  const list = async (query = '') => {
    const res = await call(`${server.url}/v1/dashboard/${t.projectId}/reports${query}`, {
      headers: bearer(t.apiKey),
    });
    expect(res.status).toBe(200);
    return ReportList.parse(res.body);
  };

  beforeAll(async () => {
    server = await startTestServer(dialect);
    t = await server.tenant();
    const seeds: Array<[string, string, string?, string?]> = [
      ['success', '2026-01-10T08:00:00.250Z', 'search', 'claude'],
      ['failure', '2026-01-10T23:59:59.900Z', 'search', 'cursor'],
      ['failure', '2026-01-11T00:00:00.000Z', 'fetch', 'claude'],
      ['confusing', '2026-01-12T12:00:00.000Z', 'fetch'],
      ['gave_up', '2026-01-13T12:00:00.000Z', undefined, 'claude'],
      ['request', '2026-01-14T12:00:00.000Z', 'search'],
    ];
    for (const [outcome, at, tool_name, source] of seeds) {
      await seedReport(server.ctx.db, t.projectId, { outcome, at, tool_name, source });
    }
  });
  afterAll(() => server.close());

  it('lists newest first with project, stats and pagination', async () => {
    const body = await list();
    expect(body.project).toEqual({ id: t.projectId, name: t.projectName });
    expect(body.reports.map((r) => r.outcome)).toEqual([
      'request',
      'gave_up',
      'confusing',
      'failure',
      'failure',
      'success',
    ]);
    expect(body.stats).toEqual({
      total: 6,
      success: 1,
      failure: 2,
      confusing: 1,
      gave_up: 1,
      request: 1,
    });
    expect(body.pagination).toEqual({ page: 1, limit: 50, total: 6, next_cursor: null });
    expect(body.reports[0]!.created_at).toBe('2026-01-14T12:00:00Z');
  });

  it('orders reports of the same instant by id, descending', async () => {
    const other = await server.tenant();
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        await seedReport(server.ctx.db, other.projectId, {
          outcome: 'success',
          at: '2026-02-01T00:00:00.000Z',
        }),
      );
    const res = await call(`${server.url}/v1/dashboard/${other.projectId}/reports`, {
      headers: bearer(other.apiKey),
    });
    expect(res.body.reports.map((r: { id: string }) => r.id)).toEqual([...ids].sort().reverse());
  });

  it('filters by outcome while stats keep counting every outcome (facets)', async () => {
    const body = await list('?outcome=failure');
    expect(body.reports.every((r) => r.outcome === 'failure')).toBe(true);
    expect(body.pagination.total).toBe(2);
    expect(body.stats.total).toBe(6);
  });

  it('filters by tool_name and source, and stats follow those filters', async () => {
    const byTool = await list('?tool_name=search');
    expect(byTool.reports).toHaveLength(3);
    expect(byTool.stats).toEqual({
      total: 3,
      success: 1,
      failure: 1,
      confusing: 0,
      gave_up: 0,
      request: 1,
    });
    const both = await list('?tool_name=search&source=claude');
    expect(both.reports.map((r) => r.outcome)).toEqual(['success']);
    expect(both.stats.total).toBe(1);
  });

  it('treats a date-only `to` as the whole day and both bounds as inclusive', async () => {
    const day = await list('?from=2026-01-10&to=2026-01-10');
    expect(day.reports.map((r) => r.outcome)).toEqual(['failure', 'success']);
    const range = await list('?from=2026-01-11T00:00:00Z&to=2026-01-12T12:00:00Z');
    expect(range.reports.map((r) => r.outcome)).toEqual(['confusing', 'failure']);
  });

  it('honours offsets and treats date-times without an offset as UTC', async () => {
    const plusTwo = await list('?from=2026-01-11T02:00:00%2B02:00&to=2026-01-11T01:00:00');
    expect(plusTwo.reports.map((r) => r.created_at)).toEqual(['2026-01-11T00:00:00Z']);
  });

  it('paginates, clamps limit to 100 and returns an empty page past the end', async () => {
    const first = await list('?limit=4');
    const second = await list('?limit=4&page=2');
    expect(first.reports).toHaveLength(4);
    expect(second.reports).toHaveLength(2);
    expect(second.pagination).toEqual({ page: 2, limit: 4, total: 6, next_cursor: null });
    expect(first.pagination.next_cursor).toEqual(expect.any(String));
    expect(new Set([...first.reports, ...second.reports].map((r) => r.id)).size).toBe(6);
    expect((await list('?limit=1000')).pagination.limit).toBe(100);
    const past = await list('?page=99');
    expect(past.reports).toEqual([]);
    expect(past.pagination.total).toBe(6);
    expect((await list('?page=9007199254740991')).reports).toEqual([]);
  });

  it('answers 50 reports a page when no limit is given (the specification default)', async () => {
    const busy = await server.tenant();
    for (let i = 0; i < 55; i++) {
      const at = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
      await seedReport(server.ctx.db, busy.projectId, { outcome: 'success', at });
    }
    const res = await call(`${server.url}/v1/dashboard/${busy.projectId}/reports`, {
      headers: bearer(busy.apiKey),
    });
    const first = ReportList.parse(res.body);
    expect(first.pagination).toEqual({
      page: 1,
      limit: 50,
      total: 55,
      next_cursor: expect.any(String),
    });
    expect(first.reports).toHaveLength(50);
    const second = await call(`${server.url}/v1/dashboard/${busy.projectId}/reports?page=2`, {
      headers: bearer(busy.apiKey),
    });
    expect(ReportList.parse(second.body).reports).toHaveLength(5);
  });
});
