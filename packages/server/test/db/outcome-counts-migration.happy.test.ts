import { afterEach, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  DIALECTS,
  type TestDatabase,
} from '../../../../test/harness/databases.js';
import { ensureAccount } from '../../src/accounts/account.service.js';
import { type Database, openDatabase } from '../../src/db/database.js';
import { createProject } from '../../src/projects/project.service.js';
import { migratorOf } from '../support/migrator.js';

/**
 * Migration 0018 fills each project's per-outcome totals from `report_counts`, which counts
 * every stored report (SQLite's inbox included), so an upgraded database's unfiltered stats
 * are right at once.
 */
describe.each(DIALECTS)('migration 0018 on %s', (dialect) => {
  let testDb: TestDatabase;
  let database: Database;
  afterEach(async () => {
    await database.close();
    await testDb.drop();
  });

  it('sums each project’s counters per outcome', async () => {
    testDb = await createTestDatabase(dialect);
    database = openDatabase(testDb.url);
    const migrator = migratorOf(database);
    expect((await migrator.migrateTo('0017-report-issues')).error).toBeUndefined();

    const db = database.kysely;
    const account = await ensureAccount(db, { email: 'm@example.test', password: null });
    const { project: one } = await createProject(db, account.id, 'one');
    const { project: two } = await createProject(db, account.id, 'two');
    const counters = [
      [one.id, 'search', 'cli', 'failure', 3],
      [one.id, 'search', '', 'failure', 4],
      [one.id, '', 'ide', 'success', 2],
      [one.id, 'fetch', 'ide', 'gave_up', 1],
      [two.id, 'search', 'cli', 'failure', 5],
    ] as const;
    await db
      .insertInto('report_counts')
      .values(
        counters.map(([project_id, tool_name, source, outcome, count]) => ({
          project_id,
          tool_name,
          source,
          outcome,
          count,
        })),
      )
      .execute();

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const totals = await db
      .selectFrom('report_outcome_counts')
      .select(['project_id', 'outcome', 'count'])
      .orderBy('project_id')
      .orderBy('outcome')
      .execute();
    expect(totals.map((row) => ({ ...row, count: Number(row.count) }))).toEqual([
      { project_id: one.id, outcome: 'failure', count: 7 },
      { project_id: one.id, outcome: 'gave_up', count: 1 },
      { project_id: one.id, outcome: 'success', count: 2 },
      { project_id: two.id, outcome: 'failure', count: 5 },
    ]);
  });
});
