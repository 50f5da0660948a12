import { ListReportsQuery, OUTCOMES } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { DEEP_PAGE_OFFSET, seekDeepPage } from '../../src/reports/deep-page.repository.js';
import { listReportsPage } from '../../src/reports/report.repository.js';
import { listReports } from '../../src/reports/report.service.js';
import { submission } from '../support/submissions.js';

/**
 * A deep page by number skips whole hours by their rollup counts
 * (deep-page.repository.ts) and returns exactly the rows the whole offset returns. 6,000
 * reports over 48 hours, a tenth of them on an hour's first or last millisecond, where an off-by-
 * one would move a row across the bound; every filter the skip serves, and those it leaves.
 */
const HOUR = 3_600_000;
const START = Date.parse('2026-05-04T00:00:00.000Z');
const REPORTS = 6000;
const TOOLS = ['search', 'fetch', 'deploy'];
const SOURCES = ['cli', 'ide', 'ci'];
const ALWAYS = { unlabelled: 0, labelled: 0 };

describe.each(DIALECTS)('deep pages on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, { FREE_TIER_MONTHLY_REPORTS: 'unlimited' });
  });
  afterAll(() => server.close());

  it('skip whole hours by the rollups and return the rows the whole offset returns', async () => {
    const t = await server.tenant();
    const { ctx } = server;
    const times = Array.from({ length: REPORTS }, (_, i) => {
      const hour = Math.floor((i * 48) / REPORTS);
      const edge = i % 20 === 0 ? 0 : i % 20 === 1 ? HOUR - 1 : ((i * 7919) % HOUR) + 1;
      return START + hour * HOUR + Math.min(edge, HOUR - 1);
    });
    const outcomes = await Promise.all(
      times.map((at, i) =>
        ctx.reportWriter.submit(
          submission(t.ingestKey, {
            at: new Date(at),
            address: `10.0.${i % 200}.${i % 250}`,
            outcome: OUTCOMES[i % OUTCOMES.length]!,
            toolName: TOOLS[i % TOOLS.length]!,
            source: SOURCES[Math.floor(i / 7) % SOURCES.length]!,
            details: 'deep page',
          }),
        ),
      ),
    );
    expect(outcomes.every((o) => o.status === 'stored')).toBe(true);

    const queries: Record<string, string>[] = [
      {},
      { outcome: 'failure' },
      { tool_name: 'fetch' },
      { source: 'ide' },
      { outcome: 'failure', tool_name: 'search' },
      { from: new Date(START + 5.5 * HOUR).toISOString() },
      { from: new Date(START + 7 * HOUR).toISOString(), tool_name: 'deploy' },
      // Left to the index walk: a `to` bound.
      { to: new Date(START + 40 * HOUR).toISOString() },
    ];
    let skipped = 0;
    for (const raw of queries) {
      for (const page of [21, 22, 40, 41, 57, 100, 119, 120]) {
        const q = ListReportsQuery.parse({ ...raw, page: String(page), limit: '50' });
        const what = `${JSON.stringify(raw)} page ${page}`;
        const list = await listReports(ctx, t.accountId, t.projectId, q);
        const filters = {
          outcome: q.outcome,
          toolName: q.tool_name,
          source: q.source,
          from: q.from?.start,
          before: q.to?.end,
        };
        const offset = (page - 1) * 50;
        const whole = await listReportsPage(ctx.db, ctx.database.dialect, t.projectId, filters, {
          offset,
          limit: 50,
        });
        expect(
          list.reports.map((r) => r.id),
          what,
        ).toEqual(whole.map((r) => r.id));
        // The seek itself from any depth (the server's thresholds kept the labelled ones from
        // it above), at this page and a few rows either side of it.
        for (const at of [offset - 1, offset, offset + 1, offset + 37]) {
          const seek = await seekDeepPage(ctx.db, t.projectId, filters, { offset: at }, ALWAYS);
          if (!('offset' in seek.page)) throw new Error('a seek by number stays one');
          if (seek.page.offset < at) skipped++;
          const seeked = await listReportsPage(
            ctx.db,
            ctx.database.dialect,
            t.projectId,
            seek.filters,
            {
              ...seek.page,
              limit: 50,
            },
          );
          const plain = await listReportsPage(ctx.db, ctx.database.dialect, t.projectId, filters, {
            offset: at,
            limit: 50,
          });
          expect(
            seeked.map((r) => r.id),
            `${what} at ${at}`,
          ).toEqual(plain.map((r) => r.id));
        }
      }
    }
    // The skip did happen, for most of the deep pages.
    expect(DEEP_PAGE_OFFSET.unlabelled).toBeLessThanOrEqual(20 * 50);
    expect(skipped).toBeGreaterThan(60);
  }, 120_000);
});
