import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * On PostgreSQL, a report's issue moves out of `reports` into a narrow table of its
 * own, `report_issues` (report_id, project_id, created_at, issue_id, issue_reason), written with
 * a null issue in the transaction that inserts the report, and updated by the grouper.
 *
 * Why: placing a report by updating its `reports` row would have PostgreSQL write a new version
 * of the whole row, with a new entry in every index of `reports` (six, none of them skippable:
 * the issue is indexed), and vacuum later remove the old one from all six. Under the bench's
 * ingest that update costs PostgreSQL about as much as inserting the report
 * (pg_stat_statements: ~63 µs a report); the narrow row has two indexes that change with its
 * issue. `reports` is written once and never updated, which also suits partitioning it by
 * month later (docs/scaling.md).
 *
 * The two indexes of 0013 move with the columns: an issue's reports (project_id, issue_id,
 * created_at, report_id), and the reports still to group (created_at, report_id; partial, only
 * those). WITHOUT ROWID on SQLite: the primary key is the table. The SQLite inbox (0005) needs
 * nothing: its reports get their row when moved into `reports`.
 */
export function reportIssuesMigration(dialect: Dialect): Migration {
  const timestamp = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('report_issues')
        .addColumn('report_id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .addColumn('issue_id', 'text')
        .addColumn('issue_reason', 'text')
        .$call((t) => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t))
        .execute();
      await sql`
        insert into report_issues (report_id, project_id, created_at, issue_id, issue_reason)
        select id, project_id, created_at, issue_id, issue_reason from reports
      `.execute(db);
      await db.schema
        .createIndex('report_issues_by_project_issue')
        .on('report_issues')
        .columns(['project_id', 'issue_id', 'created_at', 'report_id'])
        .execute();
      await db.schema
        .createIndex('report_issues_ungrouped')
        .on('report_issues')
        .columns(['created_at', 'report_id'])
        .where(sql.ref('issue_id'), 'is', null)
        .execute();

      await db.schema.dropIndex('reports_by_project_issue').execute();
      await db.schema.dropIndex('reports_ungrouped').execute();
      // SQLite rewrites the table for each (once, at start-up: seconds per million reports).
      await db.schema.alterTable('reports').dropColumn('issue_reason').execute();
      await db.schema.alterTable('reports').dropColumn('issue_id').execute();
    },
  };
}
