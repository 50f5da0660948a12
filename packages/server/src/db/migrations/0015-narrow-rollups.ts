import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Rollups that keep fewer labels than 0010's, so the counts that do not ask for a
 * label read far fewer rows (reports/report-rollup-key.ts, ROLLUP_GRAINS, says which read which).
 * At 1,000,000 reports over 90 days, 0010's daily table holds ~750 rows a day (30 tools × 5
 * sources × 5 outcomes): the dashboard's 30-day timeseries summed ~23,000 of them (9 ms of
 * SQLite) and its tools table as many (8 ms), where these hold 155 and ~4,500. Minutes
 * (outcomes only) count a busy project's last minutes, which 0010 left to the reports.
 *
 * As 0010: the bucket's start typed as `reports.created_at`, absent labels '', the primary key
 * (project_id, bucket, labels…, outcome) and WITHOUT ROWID on SQLite. Filled here from 0010's
 * rollups, which are exact, and the minutes from the reports (and SQLite's inbox, whose
 * reports 0010's rollups count already).
 */
const TABLES = [
  {
    table: 'report_rollups_day_tools',
    column: 'day',
    labels: ['tool_name'],
    from: 'report_rollups_daily',
  },
  {
    table: 'report_rollups_day_sources',
    column: 'day',
    labels: ['source'],
    from: 'report_rollups_daily',
  },
  { table: 'report_rollups_day_outcomes', column: 'day', labels: [], from: 'report_rollups_daily' },
  { table: 'report_rollups_hour_outcomes', column: 'hour', labels: [], from: 'report_rollups' },
  { table: 'report_rollups_minute_outcomes', column: 'minute', labels: [], from: null },
] as const;

export function narrowRollupsMigration(dialect: Dialect): Migration {
  const timestamp = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>) {
      for (const { table, column, labels, from } of TABLES) {
        const key: string[] = ['project_id', column, ...labels, 'outcome'];
        let create = db.schema
          .createTable(table)
          .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
          .addColumn(column, timestamp, (c) => c.notNull());
        for (const label of labels) create = create.addColumn(label, 'text', (c) => c.notNull());
        await create
          .addColumn('outcome', 'text', (c) => c.notNull())
          .addColumn('count', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint(`${table}_pk`, key as never)
          .$call((t) => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t))
          .execute();
        const columns = sql.join(key.map((name) => sql.ref(name)));
        if (from) {
          // The same bucket column name in the source (day or hour): only labels are dropped.
          await sql`
            insert into ${sql.table(table)} (${columns}, count)
            select ${columns}, sum(count) from ${sql.table(from)} group by ${columns}
          `.execute(db);
          continue;
        }
        const minute =
          dialect === 'postgres'
            ? sql`date_trunc('minute', created_at at time zone 'UTC') at time zone 'UTC'`
            : sql`substr(created_at, 1, 16) || ':00.000Z'`;
        const reports =
          dialect === 'postgres'
            ? sql`select project_id, created_at, outcome from reports`
            : sql`select project_id, created_at, outcome from reports
                  union all select project_id, created_at, outcome from report_inbox`;
        await sql`
          insert into ${sql.table(table)} (project_id, minute, outcome, count)
          select project_id, ${minute}, outcome, count(*) from (${reports}) as stored
          group by 1, 2, 3
        `.execute(db);
      }
    },
  };
}
