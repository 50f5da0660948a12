import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Issue 17, item 2: reports per hour and (tool_name, source, outcome), kept in the same
 * transaction as the reports they count (reports/report-rollups.repository.ts). Counts under a
 * date range — the stats and total of the reports list, the dashboard's timeseries, tools table
 * and sources list — then read the full hours of the range from here (O(hours) rows) and count
 * only the partial hours at its two ends from `reports`.
 *
 * `hour` is the start of the UTC hour, typed as `reports.created_at` is (0001): timestamptz on
 * PostgreSQL, ISO 8601 text (`2026-11-23T14:00:00.000Z`, the form of toISOString) on SQLite, so
 * it compares with the same bounds as `created_at`. Absent labels are '' as in report_counts.
 *
 * The primary key leads with (project_id, hour): an unfiltered range is one range scan. A tool
 * or source filter seeks on its own index, ordered by hour, instead of reading every label of
 * every hour. Updating `count` changes no indexed column, so the two indexes cost a write only
 * when a new (hour, labels) row appears. On SQLite the table is WITHOUT ROWID: the key is the
 * table, so a range scan reads `count` where it finds the key.
 */
export function reportRollupsMigration(dialect: Dialect): Migration {
  const timestamp = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('report_rollups')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
        .addColumn('hour', timestamp, (c) => c.notNull())
        .addColumn('tool_name', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('report_rollups_pk', [
          'project_id',
          'hour',
          'tool_name',
          'source',
          'outcome',
        ])
        .$call((table) => (dialect === 'sqlite' ? table.modifyEnd(sql`without rowid`) : table))
        .execute();
      await db.schema
        .createIndex('report_rollups_by_tool')
        .on('report_rollups')
        .columns(['project_id', 'tool_name', 'hour'])
        .execute();
      await db.schema
        .createIndex('report_rollups_by_source')
        .on('report_rollups')
        .columns(['project_id', 'source', 'hour'])
        .execute();

      // The reports stored before this migration, so an upgraded database answers at once. On
      // SQLite that includes the writer's inbox (0005): those reports are committed and counted
      // in report_counts already, only not moved into `reports` yet.
      if (dialect === 'postgres') {
        await sql`
          insert into report_rollups (project_id, hour, tool_name, source, outcome, count)
          select project_id, date_trunc('hour', created_at at time zone 'UTC') at time zone 'UTC',
            coalesce(tool_name, ''), coalesce(source, ''), outcome, count(*)
          from reports
          group by 1, 2, 3, 4, 5
        `.execute(db);
      } else {
        await sql`
          insert into report_rollups (project_id, hour, tool_name, source, outcome, count)
          select project_id, substr(created_at, 1, 13) || ':00:00.000Z',
            coalesce(tool_name, ''), coalesce(source, ''), outcome, count(*)
          from (
            select project_id, created_at, tool_name, source, outcome from reports
            union all
            select project_id, created_at, tool_name, source, outcome from report_inbox
          )
          group by 1, 2, 3, 4, 5
        `.execute(db);
      }
    },
  };
}
