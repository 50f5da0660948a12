/**
 * A batch of grouping (issues/pipeline/group-reports.ts) takes shortcuts for reports that repeat the one
 * before them: the same signature without asking the engine, and a repeat's widening of its
 * issue deferred, a run of them widening it once. Neither may change what is stored: the
 * corpus, with runs of repeats, grouped in one batch, in batches of 7 and report by report,
 * leaves the same issues (signature, counts, title) and the same placements, on both dialects;
 * and so does the server's runner, handed the reports as the write path stored them instead of
 * reading them back (stored-inputs.ts).
 */
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { createTenant, type TestServer } from '../../../../test/harness/test-server.js';
import { type CorpusReport, loadCorpus } from '../../scripts/grouping-evaluation.js';
import type { DB } from '../../src/db/schema.js';
import { inProcessBatches } from '../../src/issues/pipeline/batch-runner.js';
import { groupBatch } from '../../src/issues/pipeline/group-batch.js';
import { importReports } from '../../src/reports/write-path/index.js';
import { expectIssueDaysExact } from '../support/issue-days.js';
import { handedOver, openTenantDatabase, reportRow } from '../support/seed.js';

/** The corpus's first reports, each sent 1 to 4 times in a row, a few of them again later. */
function streamWithRuns(): CorpusReport[] {
  const corpus = loadCorpus().slice(0, 80);
  const stream: CorpusReport[] = [];
  corpus.forEach((report, i) => {
    for (let k = 0; k <= i % 4; k += 1) stream.push(report);
    if (i % 9 === 8) stream.push(corpus[i - 5] as CorpusReport, corpus[i - 5] as CorpusReport);
  });
  return stream;
}

/**
 * The stream grouped in batches of `batchSize`, as a project of its own in the dialect's one
 * database: each run after the one before, later (the queue then holds only its reports, and
 * none lies behind what was grouped last); times are compared from the run's start.
 */
async function groupedIn(
  dialect: (typeof DIALECTS)[number],
  db: Kysely<DB>,
  batchSize: number,
  { handOver = false } = {},
) {
  const tenant = await createTenant({ db } as TestServer['ctx']);
  runs += 1;
  const start = Date.parse('2026-11-01T00:00:00.000Z') + runs * 20_000_000;
  const rows = streamWithRuns().map((report, i) =>
    reportRow(tenant.projectId, {
      outcome: report.outcome,
      at: new Date(start + i * 1000),
      tool_name: report.tool_name,
      details: report.details,
    }),
  );
  await db.transaction().execute((trx) => importReports(trx, dialect, rows));
  const now = new Date(start + 10_000_000);
  // As the server's grouper runs: a runner that keeps its pools, handed what the write path
  // stored (stored-inputs.ts), the first batch reading back, the others not.
  const runner = inProcessBatches(db, dialect);
  let handed = [handedOver(rows)];
  for (let round = 0; round < rows.length + 1; round += 1) {
    const result = handOver
      ? await runner.group(batchSize, now, handed)
      : await db.transaction().execute((trx) => groupBatch(trx, dialect, batchSize, now));
    handed = [];
    if (result.grouped === 0) break;
  }
  const placed = await db
    .selectFrom('report_issues')
    .select(['report_id', 'issue_id', 'issue_reason'])
    .where('project_id', '=', tenant.projectId)
    .orderBy('report_id')
    .execute();
  expect(placed).toHaveLength(rows.length);
  await expectIssueDaysExact(db, tenant.projectId);
  // Issues by the order their first report came, whatever ids they were given.
  const order = new Map<string, number>();
  for (const p of placed) if (!order.has(p.issue_id!)) order.set(p.issue_id!, order.size);
  const issues = await db
    .selectFrom('issues')
    .select(['id', 'title', 'signature', 'count_failure', 'count_confusing', 'count_gave_up'])
    .select(['count_success', 'count_request', 'first_seen', 'last_seen', 'sample_details'])
    .where('project_id', '=', tenant.projectId)
    .execute();
  return {
    placements: placed.map((p) => order.get(p.issue_id!)),
    repeats: placed.filter((p) => p.issue_reason?.includes('the same details')).length,
    issues: issues
      .map(({ id, signature, first_seen, last_seen, ...rest }) => ({
        at: order.get(id),
        signature: JSON.parse(signature) as unknown,
        first_seen: new Date(first_seen).getTime() - start,
        last_seen: new Date(last_seen).getTime() - start,
        ...rest,
      }))
      .sort((a, b) => (a.at ?? -1) - (b.at ?? -1)),
  };
}

let runs = 0;

describe.each(DIALECTS)('grouping on %s', (dialect) => {
  let opened: Awaited<ReturnType<typeof openTenantDatabase>>;
  beforeAll(async () => {
    opened = await openTenantDatabase(dialect);
  });
  afterAll(() => opened?.close());

  it('stores the same whatever the batches, runs of repeats included', async () => {
    const { db } = opened;
    const whole = await groupedIn(dialect, db, 1000);
    expect(whole.issues.length).toBeGreaterThan(10);
    // Runs were taken as runs: most placements repeat the report before them.
    expect(whole.repeats).toBeGreaterThan(100);
    // Each batch reads its pools anew (no cache here), so a repeat's reason may name the
    // comparison instead: the reasons differ, nothing else.
    const { repeats: _, ...stored } = whole;
    for (const size of [7, 1]) {
      const { repeats: __, ...again } = await groupedIn(dialect, db, size);
      expect(again).toEqual(stored);
    }
    for (const size of [1000, 7]) {
      const { repeats: __, ...handed } = await groupedIn(dialect, db, size, { handOver: true });
      expect(handed).toEqual(stored);
    }
  }, 60_000);
});
