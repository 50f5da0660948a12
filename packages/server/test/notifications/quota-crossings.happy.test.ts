import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  DIALECTS,
  type TestDatabase,
} from '../../../../test/harness/databases.js';
import { GENEROUS_INGEST_LIMITS } from '../../../../test/harness/ingest-limits.js';
import { createTenant, type TestServer } from '../../../../test/harness/test-server.js';
import { setMonthlyQuota } from '../../src/accounts/account.service.js';
import { loadConfig } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { openSqliteConnection } from '../../src/db/sqlite-connection.js';
import { kyselyOverConnection } from '../../src/db/sqlite-kysely.js';
import { createProject } from '../../src/projects/project.service.js';
import { getUsage } from '../../src/reports/usage.repository.js';
import { createGroupCommitWriter } from '../../src/reports/write-path/group-commit-writer.js';
import {
  createReportWriter,
  type QuotaCrossingHook,
  type ReportSubmission,
  type ReportWriter,
} from '../../src/reports/write-path/index.js';
import { createSqliteReportBatch } from '../../src/reports/write-path/sqlite/sqlite-report-batch.js';
import { notifyQuotaCrossings } from '../../src/wiring/notification-seam.js';
import { quotaCrossingPort } from '../../src/wiring/quota-seam.js';
import { submission } from '../support/submissions.js';

/**
 * `quota.warning` and `quota.reached` written by the write path, in the transaction of the batch
 * whose count passes the mark: the server's writer (on a SQLite file its thread, started through
 * the wiring's entry; on PostgreSQL group commit) with the outbox's hook, on a database with no
 * deliverer, so the outbox rows stay to be counted.
 */
describe.each(DIALECTS)('quota notifications from the write path (%s)', (dialect) => {
  let database: TestDatabase;
  let opened: Database;
  let writer: ReportWriter;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    opened = openDatabase(database.url);
    await migrateToLatest(opened);
    const config = loadConfig({
      DATABASE_URL: database.url,
      LOG_LEVEL: 'silent',
      ...GENEROUS_INGEST_LIMITS,
    });
    writer = createReportWriter(opened, config, { quotaCrossings: quotaCrossingPort });
    await writer.ready();
  });
  afterAll(async () => {
    await writer?.close();
    await opened?.close();
    await database?.drop();
  });

  /** An account with `quota` and two projects; `submit(n)` stores n reports through the first. */
  async function account(quota: number | 'unlimited') {
    const t = await createTenant({ db: opened.kysely } as TestServer['ctx']);
    await setMonthlyQuota(opened.kysely, t.email, quota);
    const second = await createProject(opened.kysely, t.accountId, 'Second project');
    const submit = (n: number) =>
      Promise.all(Array.from({ length: n }, () => writer.submit(submission(t.ingestKey))));
    const outbox = async () =>
      (
        await opened.kysely
          .selectFrom('notification_outbox')
          .select(['project_id', 'type', 'data'])
          .where('project_id', 'in', [t.projectId, second.project.id])
          .orderBy('id')
          .execute()
      ).map((row) => ({ ...row, data: JSON.parse(row.data ?? 'null') }));
    return { t, projects: [t.projectId, second.project.id].sort(), submit, outbox };
  }
  const month = () => new Date().toISOString().slice(0, 7);

  it('the batch that passes 80 % writes one quota.warning per project of the account; a second crossing in the month writes none', async () => {
    const a = await account(10);
    await a.submit(7);
    expect(await a.outbox()).toEqual([]);
    await a.submit(1);
    const warnings = await a.outbox();
    expect(warnings.map((row) => row.project_id).sort()).toEqual(a.projects);
    for (const row of warnings)
      expect(row).toMatchObject({
        type: 'quota.warning',
        data: { used: 8, quota: 10, month: month(), share: 0.8 },
      });
    // Raised: its 80 % is passed again this month, and nothing more is written.
    await setMonthlyQuota(opened.kysely, a.t.email, 20);
    await a.submit(8);
    expect(await a.outbox()).toHaveLength(2);
  });

  it('quota.reached is written by the report that reaches the quota, and the refusals after it write nothing', async () => {
    const a = await account(10);
    await a.submit(9);
    expect((await a.outbox()).map((row) => row.type)).toEqual(['quota.warning', 'quota.warning']);
    const [last] = await a.submit(1);
    expect(last?.status).toBe('stored');
    const reached = (await a.outbox()).filter((row) => row.type === 'quota.reached');
    expect(reached.map((row) => row.project_id).sort()).toEqual(a.projects);
    for (const row of reached)
      expect(row.data).toEqual({ used: 10, quota: 10, month: month(), share: 1 });
    const refused = await a.submit(3);
    expect(refused.map((o) => o.status)).toEqual(Array(3).fill('quota_exceeded'));
    expect(await a.outbox()).toHaveLength(4);
  });

  it('one batch may pass both marks', async () => {
    const a = await account(5);
    const outcomes = await a.submit(8);
    expect(outcomes.filter((o) => o.status === 'stored')).toHaveLength(5);
    const types = (await a.outbox()).map((row) => row.type).sort();
    expect(types).toEqual(['quota.reached', 'quota.reached', 'quota.warning', 'quota.warning']);
  });

  it("a quota lowered below the month's count: the first refusal announces both marks, once", async () => {
    const a = await account(100);
    await a.submit(6);
    await setMonthlyQuota(opened.kysely, a.t.email, 4);
    expect((await a.submit(2)).map((o) => o.status)).toEqual(Array(2).fill('quota_exceeded'));
    const rows = await a.outbox();
    expect(rows.map((row) => row.type).sort()).toEqual([
      'quota.reached',
      'quota.reached',
      'quota.warning',
      'quota.warning',
    ]);
    for (const row of rows) expect(row.data).toMatchObject({ used: 6, quota: 4, month: month() });
    await a.submit(2);
    expect(await a.outbox()).toHaveLength(4);
  });

  it('a quota lowered to between 80 % and all of the count: the next report announces the warning', async () => {
    const a = await account(100);
    await a.submit(9);
    await setMonthlyQuota(opened.kysely, a.t.email, 11);
    expect(await a.outbox()).toEqual([]);
    await a.submit(1);
    const rows = await a.outbox();
    expect(rows.map((row) => row.type)).toEqual(['quota.warning', 'quota.warning']);
    expect(rows[0]?.data).toMatchObject({ used: 10, quota: 11 });
    // The month stays past the mark: the batch after it writes nothing more.
    await a.submit(1);
    expect((await a.outbox()).map((row) => row.type).sort()).toEqual([
      'quota.reached',
      'quota.reached',
      'quota.warning',
      'quota.warning',
    ]);
  });

  /**
   * Stores one submission in a batch whose hook throws after writing, the way each back end
   * runs it: the SQLite writer thread's batch (here on a connection of this thread), or group
   * commit. Returns the error.
   */
  async function storeFailingAfterHook(s: ReportSubmission): Promise<string> {
    const failing: QuotaCrossingHook = async (trx, crossings) => {
      await notifyQuotaCrossings(trx, crossings);
      throw new Error('the batch fails after the hook');
    };
    const defaults = { freeTier: 1000, addressDailyShare: 100 };
    if (dialect === 'sqlite') {
      const sqlite = openSqliteConnection(database.url, { mustExist: true });
      try {
        const hook = { hook: failing, db: kyselyOverConnection(sqlite) };
        const [result] = await createSqliteReportBatch(sqlite, defaults, null, hook).storeBatch([
          s,
        ]);
        return result && 'error' in result ? result.error : 'stored';
      } finally {
        sqlite.close();
      }
    }
    const group = createGroupCommitWriter(opened.kysely, {
      dialect,
      defaults,
      quotaCrossings: failing,
    });
    try {
      return await group.submit(s).then(
        () => 'stored',
        (error: Error) => error.message,
      );
    } finally {
      await group.close();
    }
  }

  it('what the hook wrote rolls back with a batch that fails after it', async () => {
    const a = await account(10);
    await a.submit(7);
    expect(await storeFailingAfterHook(submission(a.t.ingestKey))).toBe(
      'the batch fails after the hook',
    );
    expect(await a.outbox()).toEqual([]);
    expect(await getUsage(opened.kysely, a.t.accountId, month())).toBe(7);
    const marks = await opened.kysely
      .selectFrom('notification_marks')
      .select('scope')
      .where('subject', '=', `${a.t.accountId}:${month()}`)
      .execute();
    expect(marks).toEqual([]);
    // Not claimed: the batch that passes the mark next announces it.
    await a.submit(1);
    expect((await a.outbox()).map((row) => row.type)).toEqual(['quota.warning', 'quota.warning']);
  });

  it('an unlimited account crosses nothing', async () => {
    const a = await account('unlimited');
    await a.submit(12);
    expect(await a.outbox()).toEqual([]);
  });
});
