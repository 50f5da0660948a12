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

/** `cursor`: a keyset walk that agrees with the pages by number. */
describe.each(DIALECTS)('GET …/reports with a cursor on %s', (dialect) => {
  let server: TestServer;
  let t: Tenant;
  const list = async (tenant: Tenant, query: string) => {
    const res = await call(`${server.url}/v1/dashboard/${tenant.projectId}/reports?${query}`, {
      headers: bearer(tenant.apiKey),
    });
    expect(res.status, query).toBe(200);
    return ReportList.parse(res.body);
  };
  /** Every page of a walk by cursor, from the first page of `query`. */
  const walk = async (tenant: Tenant, query: string) => {
    const pages = [await list(tenant, query)];
    for (let cursor = pages[0]!.pagination.next_cursor; cursor !== null; ) {
      const page = await list(tenant, `${query}&cursor=${encodeURIComponent(cursor)}`);
      pages.push(page);
      cursor = page.pagination.next_cursor;
    }
    return pages;
  };

  beforeAll(async () => {
    server = await startTestServer(dialect);
    t = await server.tenant();
    const outcomes = ['success', 'failure', 'confusing', 'failure', 'request'];
    for (let i = 0; i < 23; i++) {
      // Three reports share each instant for part of the run: the id breaks the tie.
      const at = new Date(
        Date.UTC(2026, 0, 1, 0, Math.min(i, 10 + Math.floor(i / 3))),
      ).toISOString();
      await seedReport(server.ctx.db, t.projectId, {
        outcome: outcomes[i % 5]!,
        at,
        tool_name: i % 3 === 0 ? 'search' : 'fetch',
        source: i % 2 === 0 ? 'claude' : undefined,
      });
    }
  });
  afterAll(() => server.close());

  it('walks every report once, in the order of the pages by number, then says there is no more', async () => {
    const byNumber = (await list(t, 'limit=100')).reports.map((r) => r.id);
    expect(byNumber).toHaveLength(23);
    const pages = await walk(t, 'limit=5');
    expect(pages.flatMap((p) => p.reports.map((r) => r.id))).toEqual(byNumber);
    expect(pages.map((p) => p.reports.length)).toEqual([5, 5, 5, 5, 3]);
    expect(pages.map((p) => p.pagination.page)).toEqual([1, 2, 3, 4, 5]);
    expect(pages.every((p) => p.pagination.total === 23)).toBe(true);
    expect(pages.at(-1)!.pagination.next_cursor).toBeNull();
    // A page by number ends with the same cursor as the walk's page there.
    expect((await list(t, 'limit=5&page=2')).pagination.next_cursor).toBe(
      pages[1]!.pagination.next_cursor,
    );
  });

  it('walks every combination of the filters like one big page of them', async () => {
    const combos: string[] = [];
    for (const outcome of ['', 'outcome=failure'])
      for (const tool of ['', 'tool_name=search'])
        for (const source of ['', 'source=claude'])
          for (const range of ['', 'from=2026-01-01T00:05:00Z', 'to=2026-01-01T00:14:00Z'])
            combos.push([outcome, tool, source, range].filter(Boolean).join('&'));
    for (const filters of combos) {
      const whole = (await list(t, `${filters}&limit=100`)).reports.map((r) => r.id);
      const pages = await walk(t, `${filters}&limit=2`);
      expect(
        pages.flatMap((p) => p.reports.map((r) => r.id)),
        filters,
      ).toEqual(whole);
    }
  });

  it('continues where it left off when newer reports arrive, and may change its limit', async () => {
    const busy = await server.tenant();
    for (let i = 0; i < 6; i++)
      await seedReport(server.ctx.db, busy.projectId, {
        outcome: 'success',
        at: new Date(Date.UTC(2026, 1, 1, 0, i)).toISOString(),
      });
    const first = await list(busy, 'limit=2');
    await seedReport(server.ctx.db, busy.projectId, {
      outcome: 'success',
      at: '2026-03-01T00:00:00.000Z',
    });
    const cursor = encodeURIComponent(first.pagination.next_cursor!);
    const next = await list(busy, `limit=3&cursor=${cursor}`);
    const third = (await list(busy, 'limit=100')).reports.slice(3, 6).map((r) => r.id);
    // The walk goes on after the last report it showed; page=2 would repeat one.
    expect(next.reports.map((r) => r.id)).toEqual(third);
    expect(next.pagination).toMatchObject({ limit: 3, total: 7, next_cursor: expect.any(String) });
  });
});
