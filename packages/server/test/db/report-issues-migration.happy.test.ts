import { sql } from 'kysely';
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
 * Migration 0017 moves each report's issue out of `reports` into `report_issues`: a grouped
 * report keeps its issue and reason, an ungrouped one stays for the grouper to find, and
 * `reports` loses the two columns and their indexes. Migration 0019 then queues the reports
 * still waiting in `grouping_queue`, a row per 1,000 in report order, and leaves
 * `report_issues` with the placed ones only.
 */
describe.each(DIALECTS)('migrations 0017 and 0019 on %s', (dialect) => {
  let testDb: TestDatabase;
  let database: Database;
  afterEach(async () => {
    await database.close();
    await testDb.drop();
  });

  it("moves every report's issue into report_issues, drops the columns from reports, then queues the waiting", async () => {
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

    expect((await migrator.migrateTo('0017-report-issues')).error).toBeUndefined();
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

    // 0019: r2, still waiting, is queued; 2,500 more waiting reports make three more rows.
    const waiting = Array.from({ length: 2500 }, (_, i) => ({
      id: `w${String(i).padStart(4, '0')}`,
      at: new Date(Date.parse('2026-03-09T11:00:00.000Z') + i * 1000).toISOString(),
    }));
    for (const w of waiting) {
      const at = dialect === 'postgres' ? new Date(w.at) : w.at;
      await sql`
        insert into reports (id, project_id, outcome, tool_name, source, details, created_at)
        values (${w.id}, ${project.id}, 'failure', 'search', null, 'x', ${at})
      `.execute(db);
      await sql`
        insert into report_issues (report_id, project_id, created_at)
        values (${w.id}, ${project.id}, ${at})
      `.execute(db);
    }
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const placed = await db.selectFrom('report_issues').select('report_id').execute();
    expect(placed.map((r) => r.report_id)).toEqual(['r1']);
    const queue = await db
      .selectFrom('grouping_queue')
      .select(['id', 'created_at', 'report_ids'])
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const ids = ['r2', ...waiting.map((w) => w.id)];
    expect(queue.map((q) => JSON.parse(q.report_ids))).toEqual([
      ids.slice(0, 1000),
      ids.slice(1000, 2000),
      ids.slice(2000),
    ]);
    expect(queue.map((q) => q.id)).toEqual(['r2', 'w0999', 'w1999']);
    expect(new Date(queue[0]!.created_at).toISOString()).toBe('2026-03-09T10:00:01.000Z');
  });
});
