import { IssueList } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';
import { issueOf, issuesUrl, triageKey } from '../support/issues-helpers.js';
import { seedReport } from '../support/seed.js';

/**
 * The issues list over a date range ("open issues worst first, reports in the
 * selected range"), on every dialect. Reports are seeded at chosen times and grouped by the
 * server's own grouper; one tool per issue keeps the grouping out of the question.
 */
describe.each(DIALECTS)('issues list with from/to on %s', (dialect) => {
  let server: TestServer;
  let t: Tenant;
  /** alpha: 3 reports, two on Jan 10–11 and one on Mar 1; beta: 4, Jan 5 to Jan 13; gamma: 1 in 2025. */
  const ids = { alpha: '', beta: '', gamma: '' };

  const list = async (query: string) => {
    const res = await call(issuesUrl(server, t, query), { headers: bearer(t.apiKey) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return IssueList.parse(res.body);
  };
  const counts = (issues: IssueList) =>
    issues.issues.map((issue) => [issue.id, issue.report_count, issue.range_count]);

  beforeAll(async () => {
    server = await startTestServer(dialect);
    t = await server.tenant();
    const seeds: [keyof typeof ids, string][] = [
      ['gamma', '2025-12-01T09:00:00Z'],
      ['beta', '2026-01-05T09:00:00Z'],
      ['alpha', '2026-01-10T10:00:00Z'],
      ['alpha', '2026-01-11T10:00:00Z'],
      ['beta', '2026-01-12T00:00:00Z'],
      ['beta', '2026-01-12T05:00:00Z'],
      ['beta', '2026-01-13T00:00:00Z'],
      ['alpha', '2026-03-01T00:00:00Z'],
    ];
    const last: Record<string, string> = {};
    for (const [tool, at] of seeds) {
      last[tool] = await seedReport(server.ctx.db, t.projectId, {
        outcome: 'failure',
        at,
        tool_name: tool,
        details: `${tool} breaks: the call times out after 30 s`,
      });
    }
    for (const tool of Object.keys(ids) as (keyof typeof ids)[]) {
      ids[tool] = await issueOf(server, t, last[tool]!, 10_000);
    }
    // The grouper goes in report order, so each tool's last report grouped means all are.
  });
  afterAll(() => server.close());

  it('without a range lists every issue with range_count null', async () => {
    const all = await list('?sort=count');
    expect(all.pagination.total).toBe(3);
    expect(counts(all)).toEqual([
      [ids.beta, 4, null],
      [ids.alpha, 3, null],
      [ids.gamma, 1, null],
    ]);
  });

  it('lists only issues with a report in the range, each with its count there, worst first', async () => {
    // [Jan 10, end of Jan 12): alpha 2, beta 2 (Jan 13 00:00 is past the range); gamma none.
    const both = await list('?from=2026-01-10&to=2026-01-12&sort=count');
    expect(both.pagination.total).toBe(2);
    // A tie on range_count goes to the issue seen last: alpha (Mar 1) before beta (Jan 13).
    expect(counts(both)).toEqual([
      [ids.alpha, 3, 2],
      [ids.beta, 4, 2],
    ]);

    const since = await list('?from=2026-01-12&sort=count');
    expect(counts(since)).toEqual([
      [ids.beta, 4, 3],
      [ids.alpha, 3, 1],
    ]);

    const until = await list('?to=2025-12-31');
    expect(counts(until)).toEqual([[ids.gamma, 1, 1]]);

    // Date-times keep their precision: to=…T10:00:00Z holds the report shown as 10:00:00Z.
    const instant = await list('?from=2026-01-11T10:00:00Z&to=2026-01-11T10:00:00Z');
    expect(counts(instant)).toEqual([[ids.alpha, 3, 1]]);

    const none = await list('?from=2026-02-01&to=2026-02-28');
    expect(none).toMatchObject({ issues: [], pagination: { total: 0 } });
  });

  it('keeps the other sorts, filters and pages within the range', async () => {
    const byFirst = await list('?from=2026-01-01&to=2026-01-31&sort=first_seen');
    expect(byFirst.issues.map((issue) => issue.id)).toEqual([ids.alpha, ids.beta]);
    const byLast = await list('?from=2026-01-01&to=2026-01-31');
    expect(byLast.issues.map((issue) => issue.id)).toEqual([ids.alpha, ids.beta]);

    const page2 = await list('?from=2026-01-01&sort=count&limit=1&page=2');
    expect(page2.pagination).toEqual({ page: 2, limit: 1, total: 2 });
    expect(counts(page2)).toEqual([[ids.alpha, 3, 3]]);
    const past = await list('?from=2026-01-01&limit=1&page=3');
    expect(past).toMatchObject({ issues: [], pagination: { total: 2 } });

    expect(counts(await list('?from=2026-01-01&tool_name=beta'))).toEqual([[ids.beta, 4, 4]]);
    expect((await list('?from=2026-01-01&outcome=success')).pagination.total).toBe(0);

    const resolve = await call(issuesUrl(server, t, `/${ids.beta}`), {
      method: 'PATCH',
      headers: bearer(await triageKey(server, t)),
      body: { status: 'resolved' },
    });
    expect(resolve.status).toBe(200);
    expect(counts(await list('?from=2026-01-01'))).toEqual([[ids.alpha, 3, 3]]);
    expect(counts(await list('?from=2026-01-01&status=resolved'))).toEqual([[ids.beta, 4, 4]]);
    expect((await list('?from=2026-01-01&status=all')).pagination.total).toBe(2);
  });
});
