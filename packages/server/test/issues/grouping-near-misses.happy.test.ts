/**
 * The adaptive bar as the grouper keeps it (grouping/assign.ts, pipeline/group-reports.ts): a
 * close report that opens an issue of its own counts as a near miss of the issue it came close
 * to, stored with the issue (migration 0032), so a later batch — reading its candidates anew —
 * joins the next close report to it at the lowered bar, with the reason saying so. Both dialects.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { groupBatch } from '../../src/issues/pipeline/group-batch.js';
import { importReports } from '../../src/reports/write-path/index.js';
import { openTenantDatabase, reportRow } from '../support/seed.js';

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

const details = [
  'The export stops with an out of memory error on reports with many charts.',
  // 0.125 similar to the first: under the bar (0.18), over half of it: a near miss.
  'Crash with heap exhausted during export of large charts report',
  // 0.164 similar to the first, nothing in common with the second.
  'the export stops on reports',
];

describe.each(DIALECTS)('near misses on %s', (dialect) => {
  it('counts a near miss on the issue, and a later batch joins the next close report to it', async () => {
    const { db, tenant, close } = await openTenantDatabase(dialect);
    closers.push(close);
    const start = Date.parse('2026-11-01T00:00:00.000Z');
    const rows = details.map((text, i) =>
      reportRow(tenant.projectId, {
        outcome: 'failure',
        at: new Date(start + i * 1000),
        tool_name: 'export_report',
        details: text,
      }),
    );
    await db.transaction().execute((trx) => importReports(trx, dialect, rows));
    const now = new Date(start + 60_000);
    // One report a batch: every batch reads its candidates (and their near misses) anew.
    for (let i = 0; i < rows.length; i += 1)
      await db.transaction().execute((trx) => groupBatch(trx, dialect, 1, now));

    const placed = await db
      .selectFrom('report_issues')
      .select(['report_id', 'issue_id', 'issue_reason'])
      .orderBy('report_id')
      .execute();
    expect(placed).toHaveLength(3);
    const [first, second, third] = placed;
    expect(second?.issue_id).not.toBe(first?.issue_id);
    expect(third?.issue_id).toBe(first?.issue_id);
    expect(third?.issue_reason).toContain('its bar lowered to 0.09: 1 close report opened');
    const issues = await db.selectFrom('issues').select(['id', 'near_misses']).execute();
    const misses = new Map(issues.map((issue) => [issue.id, Number(issue.near_misses)]));
    expect(misses.get(first?.issue_id as string)).toBe(1);
    expect(misses.get(second?.issue_id as string)).toBe(0);
  });
});
