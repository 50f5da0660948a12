import { IssueDetail, IssueList } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../../test/harness/test-server.js';
import { setReportIssue } from '../../src/issues/issue.repository.js';
import { groupBatch } from '../../src/issues/pipeline/group-batch.js';
import { lockGroupingProgress } from '../../src/issues/pipeline/grouping.repository.js';
import { importReports } from '../../src/reports/write-path/index.js';
import { DAY_MS, startOfUtcDay } from '../../src/time/utc-time.js';
import { bearer, call } from '../support/http.js';
import { expectIssueDaysExact } from '../support/issue-days.js';
import { issueOf, issuesUrl, submit, triageKey } from '../support/issues-helpers.js';
import { openTenantDatabase, reportRow, seedReport } from '../support/seed.js';

/**
 * The rollup of reports per issue and UTC day (`issue_days`, migration 0036) equals counting
 * `report_issues` after each of its writers: the grouper (the background one over stored
 * reports, and on SQLite the writer thread's grouping of arrivals), a developer's move of a
 * report (into another issue, out into a new one, before the grouper reached it), a merge and
 * an unmerge; and the issue page's `daily` and the list's `trend` answer from it.
 */
const today = startOfUtcDay(Date.now());
const dayOf = (daysAgo: number) => new Date(today - daysAgo * DAY_MS).toISOString().slice(0, 10);
const at = (daysAgo: number, hour: number) =>
  new Date(today - daysAgo * DAY_MS + hour * 3600_000).toISOString();

describe.each(DIALECTS)('issue days on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  /** The days of one issue, from what the rollup and report_issues agree on. */
  async function daysOf(t: Tenant, issueId: string) {
    const days = await expectIssueDaysExact(server.ctx.db, t.projectId);
    return Object.entries(days)
      .filter(([key]) => key.startsWith(`${issueId}|`))
      .map(([key, count]) => ({ day: key.slice(33), count }))
      .sort((a, b) => a.day.localeCompare(b.day));
  }

  it('follows grouping, moves, a merge and an unmerge, and answers daily and trend', async () => {
    const t = await server.tenant();
    const key = await triageKey(server, t);
    const seeded: Record<string, string[]> = { alpha: [], beta: [], gamma: [] };
    const seeds: [string, string][] = [
      ['alpha', at(5, 10)],
      ['alpha', at(5, 11)],
      ['beta', at(3, 12)],
      ['alpha', at(3, 9)],
      ['gamma', at(2, 7)],
      ['beta', at(1, 8)],
    ];
    seeds.sort((a, b) => a[1].localeCompare(b[1]));
    for (const [tool, when] of seeds) {
      seeded[tool]!.push(
        await seedReport(server.ctx.db, t.projectId, {
          outcome: 'failure',
          at: when,
          tool_name: tool,
          details: `${tool} fails: the upstream answers 502 after a minute`,
        }),
      );
    }
    const [a, b, c] = await Promise.all(
      ['alpha', 'beta', 'gamma'].map((tool) => issueOf(server, t, seeded[tool]!.at(-1)!)),
    );
    // Submitted now: on SQLite the writer thread groups it as it moves it in.
    const now = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'alpha',
      details: 'alpha fails: the upstream answers 502 after a minute',
    });
    expect(await issueOf(server, t, now)).toBe(a);
    expect(await daysOf(t, a!)).toEqual([
      { day: dayOf(5), count: 2 },
      { day: dayOf(3), count: 1 },
      { day: dayOf(0), count: 1 },
    ]);
    expect(await daysOf(t, b!)).toEqual([
      { day: dayOf(3), count: 1 },
      { day: dayOf(1), count: 1 },
    ]);

    // The page's `daily` and the list's `trend` are the rollup's days.
    const detail = IssueDetail.parse(
      (await call(issuesUrl(server, t, `/${a}`), { headers: bearer(t.apiKey) })).body,
    );
    expect(detail.daily).toEqual(await daysOf(t, a!));
    const list = IssueList.parse(
      (await call(issuesUrl(server, t, '?sort=count'), { headers: bearer(t.apiKey) })).body,
    );
    expect(Object.fromEntries(list.issues.map((issue) => [issue.id, issue.trend]))).toEqual({
      [a!]: await daysOf(t, a!),
      [b!]: await daysOf(t, b!),
      [c!]: await daysOf(t, c!),
    });

    const move = (reportId: string, body: object) =>
      call(`${server.url}/v1/dashboard/${t.projectId}/reports/${reportId}/move`, {
        body,
        headers: bearer(key),
      });
    // One of alpha's two reports of day 5 into beta.
    expect((await move(seeded.alpha![0]!, { issue_id: b })).status).toBe(200);
    expect(await daysOf(t, a!)).toEqual([
      { day: dayOf(5), count: 1 },
      { day: dayOf(3), count: 1 },
      { day: dayOf(0), count: 1 },
    ]);
    expect((await daysOf(t, b!))[0]).toEqual({ day: dayOf(5), count: 1 });
    // Gamma's only report out into a new issue: gamma is gone, with its days.
    const out = await move(seeded.gamma![0]!, { new_issue: true });
    expect(out.status).toBe(200);
    expect(await daysOf(t, c!)).toEqual([]);
    expect(await daysOf(t, out.body.issue_id)).toEqual([{ day: dayOf(2), count: 1 }]);

    const bBefore = await daysOf(t, b!);
    const merged = await call(issuesUrl(server, t, `/${b}/merge`), {
      body: { into: a },
      headers: bearer(key),
    });
    expect(merged.status).toBe(200);
    expect(await daysOf(t, b!)).toEqual([]);
    expect(await daysOf(t, a!)).toEqual([
      { day: dayOf(5), count: 2 },
      { day: dayOf(3), count: 2 },
      { day: dayOf(1), count: 1 },
      { day: dayOf(0), count: 1 },
    ]);

    const unmerged = await call(issuesUrl(server, t, `/${a}/unmerge`), {
      body: {},
      headers: bearer(key),
    });
    expect(unmerged.status).toBe(200);
    expect(await daysOf(t, b!)).toEqual(bBefore);
    expect(await daysOf(t, a!)).toEqual([
      { day: dayOf(5), count: 1 },
      { day: dayOf(3), count: 1 },
      { day: dayOf(0), count: 1 },
    ]);
  });
});

describe.each(DIALECTS)('issue days of grouped batches on %s', (dialect) => {
  let opened: Awaited<ReturnType<typeof openTenantDatabase>>;
  beforeAll(async () => {
    opened = await openTenantDatabase(dialect);
  });
  afterAll(() => opened?.close());

  it('counts batches over several days, and a queued report moved by hand once', async () => {
    const { db, tenant } = opened;
    const start = Date.parse('2026-03-01T20:00:00.000Z');
    // 120 reports, one every 37 minutes: over four UTC days, three tools.
    const rows = Array.from({ length: 120 }, (_, i) =>
      reportRow(tenant.projectId, {
        outcome: i % 5 === 0 ? 'success' : 'failure',
        at: new Date(start + i * 37 * 60_000),
        tool_name: ['search', 'fetch', 'edit'][i % 3]!,
        details: `call ${i % 3} failed: the index is locked by another writer`,
      }),
    );
    await db.transaction().execute((trx) => importReports(trx, dialect, rows.slice(0, 60)));
    const now = new Date(start + 10 * DAY_MS);
    const group = (limit: number) =>
      db.transaction().execute((trx) => groupBatch(trx, dialect, limit, now));
    for (let n = 1; n > 0; ) n = (await group(17)).grouped;
    await expectIssueDaysExact(db, tenant.projectId);

    // The next reports wait; one of them is moved by hand first, as triage does (under the lock).
    await db.transaction().execute((trx) => importReports(trx, dialect, rows.slice(60)));
    const target = await db
      .selectFrom('report_issues')
      .select('issue_id')
      .where('report_id', '=', rows[0]!.id)
      .executeTakeFirstOrThrow();
    const queued = rows[90]!;
    await db.transaction().execute(async (trx) => {
      await lockGroupingProgress(trx, dialect, { wait: true });
      await setReportIssue(
        trx,
        {
          id: queued.id,
          project_id: tenant.projectId,
          created_at: queued.createdAt,
          issue_id: null,
        },
        target.issue_id!,
        'moved by hand',
      );
    });
    for (let n = 1; n > 0; ) n = (await group(23)).grouped;
    const days = await expectIssueDaysExact(db, tenant.projectId);
    expect(Object.values(days).reduce((sum, n) => sum + n, 0)).toBe(rows.length);
    expect(new Set(Object.keys(days).map((k) => k.slice(33))).size).toBeGreaterThanOrEqual(4);
  });
});
