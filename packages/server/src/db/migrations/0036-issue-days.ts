import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Reports per issue and UTC day, `issue_days` (issue_id, project_id, day, count): what the
 * issues list's `trend` (14 days of a page of issues) and the issue page's `daily` (90 days of
 * one) read, instead of counting an issue's rows of `report_issues`, which grow with its reports
 * (a busy issue of the read bench: ~100,000 rows for 14 days). Kept by every writer of
 * `report_issues.issue_id` in its transaction (issues/issue-days.repository.ts).
 *
 * `day` is the UTC date as text (`YYYY-MM-DD`) on both dialects: what the answers carry, and a
 * PostgreSQL `date` would come back from the driver as a local midnight. The primary key
 * (issue_id, day) is each read's seek: the issue, then its days from the first asked;
 * `project_id` is checked beside it. WITHOUT ROWID on SQLite, as the report rollups (0015).
 *
 * Filled here from `report_issues` with one grouped insert (1,000,000 placed reports: a few
 * seconds on SQLite, docs/operating.md).
 */
export function issueDaysMigration(dialect: Dialect): Migration {
  const day =
    dialect === 'postgres'
      ? sql`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD')`
      : sql`substr(created_at, 1, 10)`;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('issue_days')
        .addColumn('issue_id', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
        .addColumn('count', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('issue_days_pk', ['issue_id', 'day'] as never)
        .$call((t) => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t))
        .execute();
      await sql`
        insert into issue_days (issue_id, day, project_id, count)
        select issue_id, ${day}, project_id, count(*) from report_issues
        where issue_id is not null
        group by project_id, issue_id, ${day}
      `.execute(db);
    },
  };
}
