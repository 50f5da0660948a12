import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import type { Tenant } from '../../../../test/harness/test-server.js';
import type { DB } from '../../src/db/schema.js';
import { iso } from '../../src/db/wire-timestamp.js';
import { setReportIssue } from '../../src/issues/issue.repository.js';
import { inProcessBatches } from '../../src/issues/pipeline/batch-runner.js';
import {
  bumpIssuesVersion,
  lockGroupingProgress,
} from '../../src/issues/pipeline/grouping.repository.js';
import {
  listWaitingReports,
  placeWaitingReports,
} from '../../src/issues/pipeline/grouping-queue.js';
import { KnownInputs, storedBatchOf } from '../../src/issues/pipeline/stored-inputs.js';
import { importReports, type NewReport } from '../../src/reports/write-path/index.js';
import { handedOver, openTenantDatabase, reportRow } from '../support/seed.js';

/**
 * The queue of waiting reports (migration 0019): a stored batch is one row; a grouper's batch
 * takes whole rows in order and splits the one it ends in; a report placed by hand meanwhile is
 * skipped, so every report is placed once. Reports the write path handed over
 * (stored-inputs.ts) are taken as given, while the grouper may trust them.
 */
describe.each(DIALECTS)('the grouping queue on %s', (dialect) => {
  let setup: Awaited<ReturnType<typeof openTenantDatabase>>;
  let db: Kysely<DB>;
  let t: Tenant;

  beforeAll(async () => {
    setup = await openTenantDatabase(dialect);
    ({ db, tenant: t } = setup);
  });
  afterAll(() => setup.close());

  /** Stores `count` reports as one batch of the write path, `at` seconds into the day. */
  async function storeBatch(count: number, at: number): Promise<string[]> {
    const rows = Array.from({ length: count }, (_, i) =>
      reportRow(t.projectId, {
        outcome: 'failure',
        at: new Date(Date.UTC(2026, 10, 27, 0, 0, at, i)),
        tool_name: 'search',
        details: `timeout ${at}.${i}`,
      }),
    );
    await db.transaction().execute((trx) => importReports(trx, dialect, rows));
    return rows.map((r) => r.id);
  }

  /** One grouper batch of at most `limit`, each report placed in issue `issue`. */
  function groupBatch(limit: number, issue: string) {
    return db.transaction().execute(async (trx) => {
      const { reports, take } = await listWaitingReports(trx, dialect, limit, 'all');
      const placements = reports.map((r) => ({ reportId: r.id, issueId: issue, reason: 'test' }));
      await placeWaitingReports(trx, dialect, placements, reports, take);
      return reports.map((r) => r.id);
    });
  }

  const queued = async () =>
    (
      await db.selectFrom('grouping_queue').select('report_ids').orderBy('created_at').execute()
    ).map((row) => JSON.parse(row.report_ids) as string[]);

  it('takes whole batches in order, splits the last, and skips a report placed by hand', async () => {
    const a = await storeBatch(3, 1);
    const b = await storeBatch(5, 2);
    const c = await storeBatch(2, 3);
    expect(await queued()).toEqual([a, b, c]);

    expect(await groupBatch(4, 'i'.repeat(32))).toEqual([...a, b[0]]);
    expect(await queued()).toEqual([b.slice(1), c]);
    // The rest of the split row is placed from its first report's time.
    const rest = await db
      .selectFrom('grouping_queue')
      .select('created_at')
      .where('id', '=', b[0]!)
      .executeTakeFirstOrThrow();
    expect(new Date(rest.created_at).toISOString()).toBe('2026-11-27T00:00:02.001Z');

    // Moved by hand before the grouper reached it (triage.service.ts moveReport).
    const [moved] = await db
      .selectFrom('reports')
      .select(['id', 'project_id', 'created_at'])
      .where('id', '=', b[2]!)
      .execute();
    await setReportIssue(db, { ...moved!, issue_id: null }, 'm'.repeat(32), 'moved by hand');

    expect(await groupBatch(100, 'j'.repeat(32))).toEqual([b[1], b[3], b[4], ...c]);
    expect(await queued()).toEqual([]);
    const placed = await db
      .selectFrom('report_issues')
      .select(['report_id', 'issue_id'])
      .orderBy('report_id')
      .execute();
    const issueOf = new Map(placed.map((p) => [p.report_id, p.issue_id]));
    expect(placed).toHaveLength(10);
    expect(issueOf.get(b[2]!)).toBe('m'.repeat(32));
    expect(issueOf.get(b[1]!)).toBe('j'.repeat(32));
    expect(issueOf.get(a[0]!)).toBe('i'.repeat(32));
    expect(await groupBatch(100, 'k'.repeat(32))).toEqual([]);
  });

  it('reads the queue page by page when one page does not fill the batch', async () => {
    // 150 rows of one report each: more than a page of the queue (100 rows).
    const ids: string[] = [];
    for (let i = 0; i < 150; i += 1) ids.push(...(await storeBatch(1, 100 + i)));
    expect(await groupBatch(140, 'i'.repeat(32))).toEqual(ids.slice(0, 140));
    expect(await queued()).toEqual(ids.slice(140).map((id) => [id]));
    expect(await groupBatch(140, 'i'.repeat(32))).toEqual(ids.slice(140));
    expect(await queued()).toEqual([]);
  });

  /** A report stored `ms` milliseconds into a minute of the day, its details naming it. */
  const rowAt = (minute: number, ms: number) =>
    reportRow(t.projectId, {
      outcome: 'failure',
      at: new Date(Date.UTC(2026, 10, 27, 1, minute, 0, ms)),
      tool_name: 'search',
      details: `stored ${ms}`,
    });
  const store = (rows: NewReport[]) =>
    db.transaction().execute((trx) => importReports(trx, dialect, rows));
  const issueOf = async (id: string) =>
    (
      await db
        .selectFrom('report_issues')
        .select('issue_id')
        .where('report_id', '=', id)
        .executeTakeFirst()
    )?.issue_id;

  it('takes the reports handed over as given and reads back the others, in report order', async () => {
    // Two batches committed while both were in flight: their times interleave.
    const first = [rowAt(1, 0), rowAt(1, 2), rowAt(1, 4)];
    const second = [rowAt(1, 1), rowAt(1, 3)];
    await store(first);
    await store(second);
    const inputs = new KnownInputs();
    // Handed over with other details than stored, to tell which was used; one never was.
    const handOver = (rows: NewReport[]) =>
      inputs.add([handedOver(rows.map((r) => ({ ...r, details: `handed ${r.details}` })))]);
    handOver([...first, second[0]!]);
    const read = (trusted: boolean) =>
      db.transaction().execute(async (trx) => {
        const { reports } = await listWaitingReports(trx, dialect, 100, 'all', {
          inputs,
          trusted,
        });
        return reports;
      });

    const given = await read(true);
    expect(given.map((r) => r.details)).toEqual([
      'handed stored 0',
      'handed stored 1',
      'handed stored 2',
      'stored 3',
      'handed stored 4',
    ]);
    expect(given.map((r) => iso(r.created_at))).toEqual(
      [0, 1, 2, 3, 4].map((ms) => rowAt(1, ms).createdAt.toISOString()),
    );
    expect(given.map((r) => r.id)).toEqual(
      [first[0], second[0], first[1], second[1], first[2]].map((r) => r!.id),
    );
    // Only what a batch stored is handed over (a rejected submission's report is not stored).
    const [kept, rejected] = [rowAt(1, 7), rowAt(1, 8)];
    const text = storedBatchOf(
      [{ report: kept }, { report: rejected }],
      [{ status: 'stored', projectId: kept.projectId }, { status: 'unknown_key' }],
    );
    expect(JSON.parse(text!)).toEqual([
      [kept.id, kept.projectId, 'failure', 'search', 'stored 7', kept.createdAt.getTime()],
    ]);
    expect(storedBatchOf([{ report: rejected }], [{ status: 'quota_exceeded', limit: 1 }])).toBe(
      null,
    );
    // Taken off as read. Not trusted (someone else wrote issues meanwhile), they are read back.
    expect(inputs.size).toBe(0);
    handOver(first);
    expect((await read(false)).map((r) => r.details)).toEqual(
      [0, 1, 2, 3, 4].map((ms) => `stored ${ms}`),
    );
    expect(inputs.size).toBe(0);
    await groupBatch(100, 'i'.repeat(32));
  });

  it("gives a handed report's time as the database gives it, and keeps none a minute older than the newest", () => {
    const inputs = new KnownInputs();
    const times = [
      0,
      -1,
      999,
      1000,
      1001,
      Date.UTC(2026, 10, 27, 23, 59, 59, 999),
      Date.UTC(2026, 10, 28, 0, 0, 0, 7),
      Date.UTC(2026, 10, 28, 0, 0, 0, 70),
      Date.UTC(2026, 10, 28, 0, 0, 0, 700),
      Date.UTC(10000, 0, 1, 0, 0, 0, 5),
      Date.UTC(10000, 0, 1, 0, 0, 0, 6),
    ];
    // One at a time: kept together, those over a minute older than the newest would go.
    const given = times.map((ms, i) => {
      const row = { ...rowAt(3, i), createdAt: new Date(ms) };
      inputs.add([handedOver([row])]);
      return inputs.take(row.id)?.created_at;
    });
    expect(given).toEqual(times.map((ms) => new Date(ms).toISOString()));
    const later = { ...rowAt(4, 1), createdAt: new Date(Date.UTC(2026, 10, 27, 1, 6)) };
    inputs.add([handedOver([rowAt(4, 0), later])]);
    expect(inputs.size).toBe(1);
    expect(inputs.take(later.id)).toBeDefined();
  });

  it('trusts what was handed over only while no one else wrote issues: a report moved by hand is placed once', async () => {
    const batches = inProcessBatches(db, dialect);
    const rows = [0, 1, 2, 3].map((ms) => rowAt(2, ms));
    await store(rows);
    // A runner's first batch has no version of its own to compare: it reads back.
    expect((await batches.group(2, new Date(), [handedOver(rows)])).grouped).toBe(2);
    // Moved by hand while waiting, as triage.service.ts moves it: under the progress row's
    // lock, writing issues (and so their version).
    const moved = rows[3]!;
    await db.transaction().execute(async (trx) => {
      await lockGroupingProgress(trx, dialect, { wait: true });
      await setReportIssue(
        trx,
        {
          id: moved.id,
          project_id: moved.projectId,
          created_at: moved.createdAt.toISOString(),
          issue_id: null,
        },
        'm'.repeat(32),
        'moved by hand',
      );
      await bumpIssuesVersion(trx);
    });
    // Trusted, its input would be placed again (the plain insert fails on its key).
    expect((await batches.group(100, new Date())).grouped).toBe(1);
    expect(await issueOf(moved.id)).toBe('m'.repeat(32));
    expect(await issueOf(rows[2]!.id)).toMatch(/^[0-9a-f]{32}$/);
    expect(await queued()).toEqual([]);
    // Its own last batch left the version: what it is handed now is trusted.
    const later = [rowAt(2, 10), rowAt(2, 11)];
    await store(later);
    const handed = handedOver(later.map((r) => ({ ...r, details: 'a distinct failure text' })));
    expect((await batches.group(100, new Date(), [handed])).grouped).toBe(2);
    const title = await db
      .selectFrom('report_issues')
      .innerJoin('issues', 'issues.id', 'report_issues.issue_id')
      .select('issues.title')
      .where('report_issues.report_id', '=', later[0]!.id)
      .executeTakeFirstOrThrow();
    expect(title.title).toContain('distinct failure');
  });

  it('ends a batch exactly at a row boundary without splitting it', async () => {
    const a = await storeBatch(2, 10);
    const b = await storeBatch(2, 11);
    expect(await groupBatch(2, 'i'.repeat(32))).toEqual(a);
    expect(await queued()).toEqual([b]);
    expect(await groupBatch(2, 'i'.repeat(32))).toEqual(b);
    expect(await queued()).toEqual([]);
  });
});
