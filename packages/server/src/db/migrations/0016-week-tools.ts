import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * A rollup of weeks by tool (reports/report-rollup-key.ts, ROLLUP_GRAINS), so the
 * dashboard's tools table over a month reads its whole weeks instead of its days: at 1,000,000
 * reports over 90 days, 30 days of 30 tools were ~4,500 rows of `report_rollups_day_tools` a
 * request (p99 27–31 ms on SQLite with 10 readers, against 20).
 *
 * As 0015: the bucket's start typed as `reports.created_at` (a week starts on a Thursday,
 * 00:00 UTC, a whole multiple of seven days since the epoch, as rollupKey computes it), absent
 * tools '', the primary key (project_id, week, tool_name, outcome) and WITHOUT ROWID on
 * SQLite. Filled from the daily tools rollup, which is exact.
 */
export function weekToolsMigration(dialect: Dialect): Migration {
  const timestamp = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('report_rollups_week_tools')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
        .addColumn('week', timestamp, (c) => c.notNull())
        .addColumn('tool_name', 'text', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('report_rollups_week_tools_pk', [
          'project_id',
          'week',
          'tool_name',
          'outcome',
        ] as never)
        .$call((t) => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t))
        .execute();
      // The start of the week holding each day: timestamptz, or ISO 8601 text on SQLite.
      const week =
        dialect === 'postgres'
          ? sql`to_timestamp(floor(extract(epoch from day) / 604800) * 604800)`
          : sql`strftime('%Y-%m-%dT%H:%M:%fZ', (cast(strftime('%s', day) as integer) / 604800) * 604800, 'unixepoch')`;
      await sql`
        insert into report_rollups_week_tools (project_id, week, tool_name, outcome, count)
        select project_id, ${week}, tool_name, outcome, sum(count)
        from report_rollups_day_tools
        group by 1, 2, 3, 4
      `.execute(db);
    },
  };
}
