import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Reports per UTC hour (`report_rollups`) and per UTC day
 * (`report_rollups_daily`) and (tool_name, source, outcome), kept in the same transaction as
 * the reports they count (reports/report-rollup-key.ts). Counts under a date range — the stats
 * and total of the reports list, the dashboard's timeseries, tools table and sources list —
 * then read the range's whole days from the daily table, the whole hours around them from the
 * hourly one, and count only the partial hours at its two ends from `reports`
 * (reports/report-rollups.repository.ts). Days matter: at 200,000 reports spread over 60 days,
 * the hourly table alone holds ~110,000 rows (few reports share an hour and labels), and a
 * 30-day range still read ~55,000 of them (136 ms against 188 ms counting the reports).
 *
 * `hour` and `day` are the bucket's start, typed as `reports.created_at` is (0001): timestamptz
 * on PostgreSQL, ISO 8601 text (`2026-11-23T14:00:00.000Z`, the form of toISOString) on SQLite,
 * so they compare with the same bounds as `created_at`. Absent labels are '' as in
 * report_counts.
 *
 * The primary key leads with (project_id, bucket): any range is one range scan of the
 * project's buckets, every label of each; a tool or source filter is checked on the rows read.
 * No index on (project_id, tool_name, bucket) or (project_id, source, bucket): SQLite's planner
 * (no ANALYZE) preferred the primary key's range to them in every plan (report-query-plans
 * test), so they would only have cost ingest a write per new row; with days for long ranges,
 * the rows a range reads stay (days + up to 46 hours) × the label combinations in use. On SQLite
 * the tables are WITHOUT ROWID: the key is the table, so a range scan reads `count` where it
 * finds the key.
 */
export function reportRollupsMigration(dialect: Dialect): Migration {
  const timestamp = dialect === 'postgres' ? 'timestamptz' : 'text';
  async function createRollups(db: Kysely<unknown>, table: string, column: 'hour' | 'day') {
    await db.schema
      .createTable(table)
      .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
      .addColumn(column, timestamp, (c) => c.notNull())
      .addColumn('tool_name', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('count', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint(`${table}_pk`, [
        'project_id',
        column,
        'tool_name',
        'source',
        'outcome',
      ])
      .$call((t) => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t))
      .execute();
    // The reports stored before this migration, so an upgraded database answers at once. On
    // SQLite that includes the writer's inbox (0005): those reports are committed and counted
    // in report_counts already, only not moved into `reports` yet. The bucket is computed in
    // UTC whatever the session's time zone.
    const field = sql.lit(column);
    if (dialect === 'postgres') {
      await sql`
        insert into ${sql.table(table)} (project_id, ${sql.ref(column)}, tool_name, source, outcome, count)
        select project_id, date_trunc(${field}, created_at at time zone 'UTC') at time zone 'UTC',
          coalesce(tool_name, ''), coalesce(source, ''), outcome, count(*)
        from reports
        group by 1, 2, 3, 4, 5
      `.execute(db);
    } else {
      // ISO text as toISOString writes it: '2026-11-23T14:00:00.000Z', '2026-11-23T00:00:00.000Z'.
      const start =
        column === 'hour'
          ? sql`substr(created_at, 1, 13) || ':00:00.000Z'`
          : sql`substr(created_at, 1, 10) || 'T00:00:00.000Z'`;
      await sql`
        insert into ${sql.table(table)} (project_id, ${sql.ref(column)}, tool_name, source, outcome, count)
        select project_id, ${start}, coalesce(tool_name, ''), coalesce(source, ''), outcome,
          count(*)
        from (
          select project_id, created_at, tool_name, source, outcome from reports
          union all
          select project_id, created_at, tool_name, source, outcome from report_inbox
        )
        group by 1, 2, 3, 4, 5
      `.execute(db);
    }
  }
  return {
    async up(db: Kysely<unknown>) {
      await createRollups(db, 'report_rollups', 'hour');
      await createRollups(db, 'report_rollups_daily', 'day');
    },
  };
}
