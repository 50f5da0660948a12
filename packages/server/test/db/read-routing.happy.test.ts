import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  DIALECTS,
  type TestDatabase,
} from '../../../../test/harness/databases.js';
import type { Database } from '../../src/db/database.js';
import { openMigratedDatabase } from '../../src/db/migrate.js';
import { UNROUTED_READ } from '../../src/db/read-routing.js';
import { SqliteReaderPool } from '../../src/db/sqlite-reader-pool.js';
import { seekDeepPage } from '../../src/reports/deep-page.repository.js';

/** A promise with its resolve, to hold the read barrier shut for as long as a test needs. */
function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Whether `promise` is still pending after `ms` (it has not resolved nor rejected). */
async function pendingAfter(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const timeout = new Promise((resolve) => setTimeout(() => resolve('pending'), ms));
  return (
    (await Promise.race([
      promise.then(
        () => 'settled',
        () => 'settled',
      ),
      timeout,
    ])) === 'pending'
  );
}

describe.each(DIALECTS)('report reads routed by the database layer (%s)', (dialect) => {
  let testDb: TestDatabase;
  let database: Database;

  afterEach(async () => {
    await database?.close();
    await testDb?.drop();
  });

  async function open() {
    testDb = await createTestDatabase(dialect);
    ({ database } = await openMigratedDatabase(testDb.url, undefined, {
      readers: 2,
      postgresConnections: 2,
      timeoutMs: 10_000,
    }));
    return database.kysely;
  }

  /** Holds the read barrier shut until `open()`, counting the reads that wait for it. */
  function holdBarrier() {
    const shut = gate();
    const held = { calls: 0, open: shut.open };
    database.setReadBarrier(() => {
      held.calls++;
      return shut.promise;
    });
    return held;
  }

  it('makes a report read wait for the read barrier, and only a report read outside a transaction', async () => {
    const db = await open();
    const barrier = holdBarrier();

    // Keys, projects, accounts: never behind the barrier (the writer's own lookups are such).
    // Nor the per-outcome totals, read by key (the writer commits them with their reports).
    await db.selectFrom('ingest_keys').select('key').execute();
    await db.selectFrom('projects').select('id').execute();
    await db.selectFrom('report_outcome_counts').selectAll().execute();
    // Inside a transaction (the transaction writer's own reads): never behind it either.
    await db.transaction().execute((trx) => trx.selectFrom('reports').select('id').execute());
    expect(barrier.calls).toBe(0);

    // A report read, a counter read, one with reports in a subquery, and a deep page's seek on
    // the rollups (deep-page.repository.ts, from any offset here) wait for it.
    const reads = [
      db.selectFrom('reports').select('id').execute(),
      db.selectFrom('report_counts').selectAll().execute(),
      db
        .selectFrom('projects')
        .select('id')
        .where('id', 'in', (eb) => eb.selectFrom('reports').select('project_id'))
        .execute(),
      seekDeepPage(db, 'p', {}, { offset: 5 }, { unlabelled: 0, labelled: 0 }),
    ];
    expect(await pendingAfter(Promise.all(reads), 150)).toBe(true);
    expect(barrier.calls).toBe(4);
    barrier.open();
    const unchanged = { filters: {}, page: { offset: 5 } };
    await expect(Promise.all(reads)).resolves.toEqual([[], [], [], unchanged]);
  });

  it('routes a raw `sql` read of a report table like a builder one, unless marked UNROUTED_READ', async () => {
    const db = await open();
    const barrier = holdBarrier();

    // Not report reads: a raw read of another table, and a raw write. A marked report read (the
    // submit path's label screening) runs ahead of the barrier on purpose.
    await sql`select id from projects`.execute(db);
    await sql`update projects set name = name where id = 'none'`.execute(db);
    await sql`${UNROUTED_READ} select count(*) as n from report_counts`.execute(db);
    expect(barrier.calls).toBe(0);

    // Raw report reads, in any case, after a comment, and through a CTE, wait for it.
    const reads = [
      sql<{ n: number }>`select count(*) as n from reports`.execute(db),
      sql<{ n: number }>`  /* why */ SELECT count(*) AS n FROM Report_Counts`.execute(db),
      sql<{ n: number }>`with r as (select id from reports) select count(*) as n from r`.execute(
        db,
      ),
    ];
    expect(await pendingAfter(Promise.all(reads), 150)).toBe(true);
    expect(barrier.calls).toBe(3);
    barrier.open();
    const counts = (await Promise.all(reads)).map((result) => Number(result.rows[0]?.n));
    expect(counts).toEqual([0, 0, 0]);
  });

  it.runIf(dialect === 'sqlite')(
    'runs report reads in reader processes, at most as many as configured, and the rest on the main connection',
    async () => {
      const db = await open();
      const pool = database.readPool;
      expect(pool).toBeInstanceOf(SqliteReaderPool);
      expect((pool as SqliteReaderPool).pids()).toEqual([]);
      await db.selectFrom('projects').select('id').execute();
      expect((pool as SqliteReaderPool).pids()).toEqual([]);
      await Promise.all(
        Array.from({ length: 6 }, () => db.selectFrom('reports').select('id').execute()),
      );
      const pids = (pool as SqliteReaderPool).pids();
      expect(pids.length).toBeGreaterThan(0);
      expect(pids.length).toBeLessThanOrEqual(2);
      expect(pids).not.toContain(process.pid);
    },
  );
});
