import { ISSUE_TREND_DAYS, IssueList } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../../test/harness/test-server.js';
import { DAY_MS, startOfUtcDay } from '../../src/time/utc-time.js';
import { bearer, call } from '../support/http.js';
import { issueOf, issuesUrl } from '../support/issues-helpers.js';
import { seedReport } from '../support/seed.js';

/**
 * The issues list's `trend`: each issue's reports per UTC day of the last 14, on every dialect,
 * for every issue of the page at once. Reports are seeded at times relative to today (the
 * window is today's), one tool per issue so grouping keeps them apart.
 */
describe.each(DIALECTS)('issues list trend on %s', (dialect) => {
  let server: TestServer;
  let t: Tenant;
  const ids = { alpha: '', beta: '', quiet: '' };
  const today = startOfUtcDay(Date.now());
  const dayOf = (daysAgo: number) => new Date(today - daysAgo * DAY_MS).toISOString().slice(0, 10);

  const list = async (query = '') => {
    const res = await call(issuesUrl(server, t, query), { headers: bearer(t.apiKey) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return IssueList.parse(res.body);
  };

  beforeAll(async () => {
    server = await startTestServer(dialect);
    t = await server.tenant();
    const at = (ms: number) => new Date(ms).toISOString();
    const first = today - (ISSUE_TREND_DAYS - 1) * DAY_MS;
    const seeds: [keyof typeof ids, string][] = [
      // quiet: a report 30 days ago, none in the window.
      ['quiet', at(today - 30 * DAY_MS)],
      // The last moment before the window, and its first.
      ['alpha', at(first - 1000)],
      ['alpha', at(first)],
      ['beta', at(today - 3 * DAY_MS + 5 * 3600_000)],
      ['beta', at(today - 3 * DAY_MS + 20 * 3600_000)],
      ['alpha', at(today - DAY_MS + 3600_000)],
      // Today, a moment ago: never in the future.
      ['beta', at(Math.max(today, Date.now() - 1000))],
    ];
    const last: Record<string, string> = {};
    for (const [tool, when] of seeds) {
      last[tool] = await seedReport(server.ctx.db, t.projectId, {
        outcome: 'failure',
        at: when,
        tool_name: tool,
        details: `${tool} breaks: the call times out after 30 s`,
      });
    }
    // The grouper goes in report order, so each tool's last report grouped means all are.
    for (const tool of Object.keys(ids) as (keyof typeof ids)[]) {
      ids[tool] = await issueOf(server, t, last[tool]!, 10_000);
    }
  });
  afterAll(() => server.close());

  it('counts each issue’s reports per UTC day of the last 14, oldest first, omitting quiet days', async () => {
    const trends = Object.fromEntries(
      (await list('?sort=count')).issues.map((issue) => [issue.id, issue.trend]),
    );
    expect(trends).toEqual({
      [ids.alpha]: [
        { day: dayOf(ISSUE_TREND_DAYS - 1), count: 1 },
        { day: dayOf(1), count: 1 },
      ],
      [ids.beta]: [
        { day: dayOf(3), count: 2 },
        { day: dayOf(0), count: 1 },
      ],
      [ids.quiet]: [],
    });
  });

  it('counts the last 14 days whatever the range, and fills the issues of every page', async () => {
    // A range that only the quiet issue's report is in: its trend stays the last 14 days.
    const ranged = await list(`?from=${dayOf(30)}&to=${dayOf(30)}`);
    expect(ranged.issues.map((issue) => [issue.id, issue.range_count, issue.trend])).toEqual([
      [ids.quiet, 1, []],
    ]);
    // Paged one by one, last seen first: beta (today), alpha (yesterday), quiet.
    const second = await list('?sort=last_seen&limit=1&page=2');
    expect(second.issues.map((issue) => [issue.id, issue.trend.length])).toEqual([[ids.alpha, 2]]);
  });

  it('keeps a trend until its issue gains a report, then reads the days again', async () => {
    const trendOf = async (id: string) =>
      (await list('?sort=count')).issues.find((issue) => issue.id === id)?.trend;
    const before = await trendOf(ids.beta);
    // A change of the rollup alone (no report placed): the kept trend is still the answer.
    await server.ctx.db
      .updateTable('issue_days')
      .set({ count: 40 })
      .where('issue_id', '=', ids.beta)
      .where('day', '=', dayOf(3))
      .execute();
    expect(await trendOf(ids.beta)).toEqual(before);
    // A report placed changes the issue's count: its days are read again, the change above too.
    const added = await seedReport(server.ctx.db, t.projectId, {
      outcome: 'failure',
      at: new Date(Math.max(today, Date.now() - 500)).toISOString(),
      tool_name: 'beta',
      details: 'beta breaks: the call times out after 30 s',
    });
    expect(await issueOf(server, t, added, 10_000)).toBe(ids.beta);
    expect(await trendOf(ids.beta)).toEqual([
      { day: dayOf(3), count: 40 },
      { day: dayOf(0), count: 2 },
    ]);
  });
});
