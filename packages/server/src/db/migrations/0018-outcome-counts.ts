import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * A project's reports per outcome, all time, kept by the write path beside
 * `report_counts` (reports/write-path/plan-batch.ts REPORT_COUNTERS). The stats of an
 * unfiltered reports list, the first request of every dashboard visit, would otherwise sum the
 * project's rows of `report_counts`, one per (tool, source, outcome): ~780 at the read bench's
 * 1,000,000 reports, ~170 µs of SQLite a read, where these five rows cost ~6.
 *
 * Primary key (project_id, outcome), WITHOUT ROWID on SQLite. Filled from `report_counts`,
 * which is exact and counts SQLite's inbox too.
 */
export function outcomeCountsMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('report_outcome_counts')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('report_outcome_counts_pk', ['project_id', 'outcome'])
        .$call((t) => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t))
        .execute();
      await sql`
        insert into report_outcome_counts (project_id, outcome, count)
        select project_id, outcome, sum(count) from report_counts group by project_id, outcome
      `.execute(db);
    },
  };
}
