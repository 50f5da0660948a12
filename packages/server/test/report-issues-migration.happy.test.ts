import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  DIALECTS,
  type TestDatabase,
} from '../../../test/harness/databases.js';
import { ensureAccount } from '../src/accounts/account.service.js';
import { type Database, openDatabase } from '../src/db/database.js';
import { createProject } from '../src/projects/project.service.js';
import { migratorOf } from './migrator.js';

/**
 * Migration 0017 moves each report's issue out of `reports` into `report_issues`: a grouped
 * report keeps its issue and reason, an ungrouped one stays for the grouper to find, and
 * `reports` loses the two columns and their indexes.
 */
describe.each(DIALECTS)('migration 0017 on %s', (dialect) => {
  let testDb: TestDatabase;
  let database: Database;
  afterEach(async () => {
    await database.close();
    await testDb.drop();
  });

  it("moves every report's issue into report_issues and drops the columns from reports", async () => {
    testDb = await createTestDatabase(dialect);
    database = openDatabase(testDb.url);
    const migrator = migratorOf(database);
    expect((await migrator.migrateTo('0016-week-tools')).error).toBeUndefined();

    const db = database.kysely;
    const account = await ensureAccount(db, { email: 'm@example.test', password: null });
    const { project } = await createProject(db, account.id, 'upgraded');
    const issue = 'a'.repeat(32);
    const rows = [
      ['r1', '2026-03-09T10:00:00.000Z', issue, 'same tool, 0.82 similar to …'],
      ['r2', '2026-03-09T10:00:01.000Z', null, null],
    ] as const;
    for (const [id, at, issueId, reason] of rows) {
      // As schema 0016 stored a report: its issue in its own row.
      await sql`
        insert into reports (id, project_id, outcome, tool_name, source, details, created_at,
          issue_id, issue_reason)
        values (${id}, ${project.id}, 'failure', 'search', null, 'x',
          ${dialect === 'postgres' ? new Date(at) : at}, ${issueId}, ${reason})
      `.execute(db);
    }

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const moved = await db
      .selectFrom('report_issues')
      .select(['report_id', 'project_id', 'created_at', 'issue_id', 'issue_reason'])
      .orderBy('report_id')
      .execute();
    expect(
      moved.map((r) => [
        r.report_id,
        r.project_id,
        new Date(r.created_at).toISOString(),
        r.issue_id,
        r.issue_reason,
      ]),
    ).toEqual(rows.map(([id, at, issueId, reason]) => [id, project.id, at, issueId, reason]));

    const columns =
      dialect === 'postgres'
        ? (
            await sql<{ name: string }>`
              select column_name as name from information_schema.columns
              where table_schema = current_schema() and table_name = 'reports'
            `.execute(db)
          ).rows
        : (await sql<{ name: string }>`select name from pragma_table_info('reports')`.execute(db))
            .rows;
    const names = columns.map((c) => c.name);
    expect(names).toContain('details');
    expect(names).not.toContain('issue_id');
    expect(names).not.toContain('issue_reason');
  });
});
