import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Call counts per tool (POST /v1/usage, reports/usage/): what a host's tools were called and how
 * often they failed, next to the reports about them.
 *
 * - `tool_usage_windows`: what each sender (`instance`, '' when it names none) said about one
 *   UTC minute, a row per tool, replaced when the sender sends the window again. Kept only as
 *   long as a window may be resent (7 days, and a day of margin); the writer deletes older rows.
 * - `tool_usage_hours`, `tool_usage_days`: the sums per UTC hour and day, by tool and
 *   `server_version` ('' = none named), kept for good; a resend adds only its difference, in the
 *   same transaction as the window's row, so the sums always equal their windows'.
 *
 * `tool_usage_days_by_tool` finds whether a project's counts already name a tool, for the cap on
 * distinct tool names (the reports' cap, MAX_TOOL_NAMES_PER_PROJECT).
 *
 * Counts are bigint on PostgreSQL: a day of a busy tool passes 2^31. WITHOUT ROWID on SQLite, as
 * the report rollups (0015).
 */
export function toolUsageMigration(dialect: Dialect): Migration {
  const timestamp = dialect === 'postgres' ? 'timestamptz' : 'text';
  const counter = dialect === 'postgres' ? 'bigint' : 'integer';
  const withoutRowid = <T extends { modifyEnd(s: unknown): T }>(t: T): T =>
    dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('tool_usage_windows')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
        .addColumn('window_start', timestamp, (c) => c.notNull())
        .addColumn('instance', 'text', (c) => c.notNull())
        .addColumn('tool_name', 'text', (c) => c.notNull())
        .addColumn('server_version', 'text', (c) => c.notNull())
        .addColumn('calls', counter, (c) => c.notNull())
        .addColumn('errors', counter, (c) => c.notNull())
        .addPrimaryKeyConstraint('tool_usage_windows_pk', [
          'project_id',
          'window_start',
          'instance',
          'tool_name',
        ] as never)
        .$call(withoutRowid)
        .execute();
      for (const [table, column] of [
        ['tool_usage_hours', 'hour'],
        ['tool_usage_days', 'day'],
      ] as const) {
        await db.schema
          .createTable(table)
          .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
          .addColumn(column, timestamp, (c) => c.notNull())
          .addColumn('tool_name', 'text', (c) => c.notNull())
          .addColumn('server_version', 'text', (c) => c.notNull())
          .addColumn('calls', counter, (c) => c.notNull())
          .addColumn('errors', counter, (c) => c.notNull())
          .addPrimaryKeyConstraint(`${table}_pk`, [
            'project_id',
            column,
            'tool_name',
            'server_version',
          ] as never)
          .$call(withoutRowid)
          .execute();
      }
      await db.schema
        .createIndex('tool_usage_days_by_tool')
        .on('tool_usage_days')
        .columns(['project_id', 'tool_name'])
        .execute();
    },
  };
}
