import {
  ListReportsQuery,
  OUTCOMES,
  type Outcome,
  StatsQuery,
  ToolStatsQuery,
} from '@debrief/protocol';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import {
  projectSourceStats,
  projectTimeseries,
  projectToolStats,
} from '../../src/console/console.service.js';
import { countByTool } from '../../src/console/stats.repository.js';
import { listReports } from '../../src/reports/report.service.js';
import { countOutcomesByProjectSince } from '../../src/reports/report-rollups.repository.js';
import { submission } from '../support/submissions.js';

/**
 * Counts under a date range come from the rollups (days, hours and, by
 * outcome alone, minutes), with what is left at the range's ends counted from the reports.
 * For random reports at random times (crowded at minute, hour and day boundaries, where an
 * edge is easy to get wrong) and random ranges
 * and filters, every count — the reports list's stats and total, the timeseries' days, the
 * tools table, the sources list and the project list's recent counts — equals counting the
 * reports one by one, here in memory.
 * The reports go through the server's own writer, so the rollups are the ones it keeps.
 * FUZZ_SEED=<n> explores other cases.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const RUNS = 30;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Three days from a Monday 00:00 UTC: the reports and the ranges fall in or around them. */
const T0 = Date.parse('2026-03-09T00:00:00.000Z');

const TOOLS = [null, 'search', 'fetch'] as const;
const SOURCES = [null, 'cli', 'ide'] as const;

/**
 * An instant near T0 or a week or two after it (so ranges hold whole weeks, migration 0016),
 * often right at, just before or just after an hour or a minute.
 */
const instant = fc
  .tuple(
    fc.constantFrom(0, 0, 0, 7 * 24, 14 * 24),
    fc.integer({ min: -2, max: 74 }),
    fc.oneof(
      fc.constantFrom(0, 1, HOUR - 1),
      fc.integer({ min: 0, max: HOUR - 1 }),
      fc
        .tuple(fc.integer({ min: 1, max: 59 }), fc.constantFrom(-1, 0, 1))
        .map(([minute, delta]) => minute * MINUTE + delta),
    ),
  )
  .map(([weeks, hour, ms]) => T0 + (weeks + hour) * HOUR + ms);

interface Seeded {
  at: number;
  outcome: Outcome;
  tool: string | null;
  source: string | null;
}

const report: fc.Arbitrary<Seeded> = fc.record({
  at: instant,
  outcome: fc.constantFrom(...OUTCOMES),
  tool: fc.constantFrom(...TOOLS),
  source: fc.constantFrom(...SOURCES),
});

/**
 * A bound as a client writes it: a date-time to the millisecond, or a whole UTC date. Often a
 * report's own time or a millisecond either side, so the edges hold reports and cut between
 * them.
 */
function bound(times: number[]): fc.Arbitrary<string> {
  const near =
    times.length === 0
      ? instant
      : fc
          .tuple(fc.constantFrom(...times), fc.constantFrom(-1, 0, 1))
          .map(([ms, delta]) => ms + delta);
  return fc.oneof(
    { weight: 3, arbitrary: near.map((ms) => new Date(ms).toISOString()) },
    { weight: 2, arbitrary: instant.map((ms) => new Date(ms).toISOString()) },
    { weight: 1, arbitrary: instant.map((ms) => new Date(ms).toISOString().slice(0, 10)) },
  );
}

function query(times: number[]) {
  return fc
    .record({
      from: fc.option(bound(times), { freq: 5 }),
      to: fc.option(bound(times), { freq: 5 }),
      tool_name: fc.option(fc.constantFrom('search', 'fetch', 'unknown'), { freq: 2 }),
      source: fc.option(fc.constantFrom('cli', 'ide'), { freq: 2 }),
      outcome: fc.option(fc.constantFrom(...OUTCOMES), { freq: 2 }),
    })
    .map((q) => Object.fromEntries(Object.entries(q).filter(([, v]) => v !== null)))
    .filter((q) => ListReportsQuery.safeParse(q).success);
}

/** Reports, and queries whose bounds fall among them. */
const dataset = fc
  .array(report, { minLength: 1, maxLength: 60 })
  .chain((reports) =>
    fc.tuple(
      fc.constant(reports),
      fc.array(query(reports.map((r) => r.at)), { minLength: 1, maxLength: 8 }),
    ),
  );

const zero = () => ({ success: 0, failure: 0, confusing: 0, gave_up: 0, request: 0 });

describe.each(DIALECTS)('hourly rollups on %s', (dialect) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  it('answer every count under a date range as counting the reports does', async () => {
    await fc.assert(
      fc.asyncProperty(dataset, async ([reports, queries]) => {
        const t = await server.tenant();
        const { ctx } = server;
        const outcomes = await Promise.all(
          reports.map((r, i) =>
            ctx.reportWriter.submit(
              submission(t.ingestKey, {
                at: new Date(r.at),
                address: `10.0.0.${i}`,
                outcome: r.outcome,
                toolName: r.tool,
                source: r.source,
                details: 'rollup property',
              }),
            ),
          ),
        );
        expect(outcomes.every((o) => o.status === 'stored')).toBe(true);

        for (const raw of queries) {
          const q = ListReportsQuery.parse({ ...raw, limit: '1' });
          const what = JSON.stringify(raw);
          const from = q.from?.start.getTime() ?? -Infinity;
          const before = q.to?.end.getTime() ?? Infinity;
          const inRange = (r: Seeded, range = { from, before }) =>
            r.at >= range.from && r.at < range.before;
          const labelled = (r: Seeded, on: { tool?: boolean; source?: boolean }) =>
            (!on.tool || q.tool_name === undefined || r.tool === q.tool_name) &&
            (!on.source || q.source === undefined || r.source === q.source);

          // The reports list: stats (facets: every filter but outcome) and the page total.
          const list = await listReports(ctx, t.accountId, t.projectId, q);
          const stats = { total: 0, ...zero() };
          for (const r of reports) {
            if (inRange(r) && labelled(r, { tool: true, source: true })) {
              stats.total++;
              stats[r.outcome]++;
            }
          }
          expect(list.stats, `stats ${what}`).toEqual(stats);
          expect(list.pagination.total, `total ${what}`).toBe(
            q.outcome ? stats[q.outcome] : stats.total,
          );

          // The project list's recent counts (since a time, to now), per project of the account.
          if (q.from) {
            const recent = await countOutcomesByProjectSince(ctx.db, t.accountId, q.from.start);
            const since = zero();
            for (const r of reports) if (r.at >= from) since[r.outcome]++;
            const got = zero();
            for (const row of recent) {
              expect(row.projectId).toBe(t.projectId);
              got[row.outcome as Outcome] += row.n;
            }
            expect(got, `since ${what}`).toEqual(since);
          }

          const statsQuery = StatsQuery.parse({
            from: raw.from,
            to: raw.to,
            tool_name: raw.tool_name,
            source: raw.source,
          });

          // The timeseries: per UTC day of the range, as shown (the route picks the days
          // when from or to is absent: the range is then those whole days).
          const { days } = await projectTimeseries(ctx, t.accountId, t.projectId, statsQuery);
          const firstDay = Date.parse(days[0]!.date);
          const lastDay = Date.parse(days[days.length - 1]!.date);
          const shown = {
            from: q.from ? from : firstDay,
            before: q.to ? before : lastDay + DAY,
          };
          const expectedDays = days.map((d) => ({ date: d.date, ...zero() }));
          for (const r of reports) {
            if (!inRange(r, shown) || !labelled(r, { tool: true, source: true })) continue;
            const day = expectedDays[Math.floor((r.at - firstDay) / DAY)];
            if (day) day[r.outcome]++;
          }
          expect(days, `timeseries ${what}`).toEqual(expectedDays);

          // The tools table (not filtered by tool): the counts per tool, and the same rows
          // in the same order as counting the reports in SQL.
          const toolQuery = ToolStatsQuery.parse({
            from: raw.from,
            to: raw.to,
            source: raw.source,
            limit: '100',
          });
          const tools = await projectToolStats(ctx, t.accountId, t.projectId, toolQuery);
          const expectedTools = new Map<string | null, ReturnType<typeof zero>>();
          for (const r of reports) {
            if (!inRange(r) || !labelled(r, { source: true })) continue;
            const counts = expectedTools.get(r.tool) ?? zero();
            counts[r.outcome]++;
            expectedTools.set(r.tool, counts);
          }
          expect(
            new Map(
              tools.tools.map(({ tool_name, total: _, success_rate: __, ...counts }) => [
                tool_name,
                counts,
              ]),
            ),
            `tools ${what}`,
          ).toEqual(expectedTools);
          expect(tools.pagination.total, `tools total ${what}`).toBe(expectedTools.size);
          if (q.from || q.to) {
            const counted = await countByTool(ctx.db, dialect, t.projectId, {
              source: q.source,
              from: q.from?.start,
              before: q.to?.end,
            });
            expect(
              tools.tools.map((tool) => tool.tool_name),
              `tools order ${what}`,
            ).toEqual(counted.tools.map((tool) => tool.toolName));
          }

          // The sources list (not filtered by source), busiest first, then by name.
          const sources = await projectSourceStats(ctx, t.accountId, t.projectId, {
            from: statsQuery.from,
            to: statsQuery.to,
            tool_name: statsQuery.tool_name,
          });
          const bySource = new Map<string, number>();
          for (const r of reports) {
            if (r.source === null || !inRange(r) || !labelled(r, { tool: true })) continue;
            bySource.set(r.source, (bySource.get(r.source) ?? 0) + 1);
          }
          const expectedSources = [...bySource]
            .sort(([a, m], [b, n]) => n - m || (a < b ? -1 : 1))
            .map(([source, total]) => ({ source, total }));
          expect(sources.sources, `sources ${what}`).toEqual(expectedSources);
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 240_000);
});
