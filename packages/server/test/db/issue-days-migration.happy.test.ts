import { afterEach, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  DIALECTS,
  type TestDatabase,
} from '../../../../test/harness/databases.js';
import { ensureAccount } from '../../src/accounts/account.service.js';
import { type Database, openDatabase } from '../../src/db/database.js';
import { createProject } from '../../src/projects/project.service.js';
import { expectIssueDaysExact } from '../support/issue-days.js';
import { migratorOf } from '../support/migrator.js';

/**
 * Migration 0036 fills `issue_days` from the placed reports of an upgraded database: each
 * issue's reports per UTC day, per project, the day taken in UTC whatever the time of day.
 */
describe.each(DIALECTS)('migration 0036 on %s', (dialect) => {
  let testDb: TestDatabase;
  let database: Database;
  afterEach(async () => {
    await database.close();
    await testDb.drop();
  });

  it('counts every issue’s placed reports per UTC day', async () => {
    testDb = await createTestDatabase(dialect);
    database = openDatabase(testDb.url);
    const migrator = migratorOf(database);
    expect((await migrator.migrateTo('0034-notification-recipients')).error).toBeUndefined();

    const db = database.kysely;
    const account = await ensureAccount(db, { email: 'm@example.test', password: null });
    const { project: one } = await createProject(db, account.id, 'one');
    const { project: two } = await createProject(db, account.id, 'two');
    const [a, b, c] = ['a', 'b', 'c'].map((x) => x.repeat(32)) as [string, string, string];
    const rows = [
      [one.id, a, '2026-03-08T23:59:59.999Z'],
      [one.id, a, '2026-03-09T00:00:00.000Z'],
      [one.id, a, '2026-03-09T17:30:00.000Z'],
      [one.id, b, '2026-03-09T08:00:00.000Z'],
      [two.id, c, '2026-03-10T12:00:00.000Z'],
      [two.id, c, '2026-03-10T12:00:01.000Z'],
    ] as const;
    await db
      .insertInto('report_issues')
      .values(
        rows.map(([project_id, issue_id, created_at], i) => ({
          report_id: String(i).padStart(32, '0'),
          project_id,
          created_at,
          issue_id,
          issue_reason: 'placed before 0036',
        })),
      )
      .execute();

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(await expectIssueDaysExact(db, one.id)).toEqual({
      [`${a}|2026-03-08`]: 1,
      [`${a}|2026-03-09`]: 2,
      [`${b}|2026-03-09`]: 1,
    });
    expect(await expectIssueDaysExact(db, two.id)).toEqual({ [`${c}|2026-03-10`]: 2 });
  });
});
