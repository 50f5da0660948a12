/**
 * The adaptive bar as the grouper keeps it (grouping/assign.ts, pipeline/group-reports.ts): a
 * close report that opens an issue of its own counts as a near miss of the issue it came close
 * to, stored with the issue (migration 0032), so a later batch — reading its candidates anew —
 * joins the next close report to it at the lowered bar, with the reason saying so; unless the
 * report lies between it and an issue a developer rejected as the same problem. Both dialects.
 */

import type { Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import type { DB } from '../../src/db/schema.js';
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

const start = Date.parse('2026-11-01T00:00:00.000Z');

/** Stores the reports and groups them one a batch: every batch reads its candidates anew. */
async function group(
  db: Kysely<DB>,
  dialect: (typeof DIALECTS)[number],
  projectId: string,
  texts: readonly string[],
  from: number,
) {
  const rows = texts.map((text, i) =>
    reportRow(projectId, {
      outcome: 'failure',
      at: new Date(start + (from + i) * 1000),
      tool_name: 'export_report',
      details: text,
    }),
  );
  await db.transaction().execute((trx) => importReports(trx, dialect, rows));
  for (let i = 0; i < rows.length; i += 1)
    await db.transaction().execute((trx) => groupBatch(trx, dialect, 1, new Date(start + 60_000)));
  return db
    .selectFrom('report_issues')
    .select(['report_id', 'issue_id', 'issue_reason'])
    .orderBy('report_id')
    .execute();
}

describe.each(DIALECTS)('near misses on %s', (dialect) => {
  it('counts a near miss on the issue, and a later batch joins the next close report to it', async () => {
    const { db, tenant, close } = await openTenantDatabase(dialect);
    closers.push(close);
    const placed = await group(db, dialect, tenant.projectId, details, 0);
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

  it('joins no report at the lowered bar between two issues a developer kept apart', async () => {
    const { db, tenant, close } = await openTenantDatabase(dialect);
    closers.push(close);
    // A near miss of the first (0.14 similar) that opens the second issue.
    const opened = await group(
      db,
      dialect,
      tenant.projectId,
      [details[0] as string, 'Charts are missing from the exported file.'],
      0,
    );
    const [memory, charts] = opened.map((placement) => placement.issue_id as string);
    expect(charts).not.toBe(memory);
    const [a, b] = [memory, charts].sort() as [string, string];
    await db
      .insertInto('similar_rejections')
      .values({
        project_id: tenant.projectId,
        issue_a: a,
        issue_b: b,
        created_at: new Date(start).toISOString(),
      })
      .execute();
    // Closest to the first (0.125, under the bar), next closest to the second.
    const placed = await group(db, dialect, tenant.projectId, [details[1] as string], 2);
    const last = placed[placed.length - 1];
    expect(last?.issue_id).not.toBe(memory);
    expect(last?.issue_id).not.toBe(charts);
  });
});
