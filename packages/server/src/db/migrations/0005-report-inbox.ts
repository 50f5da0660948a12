import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * SQLite only: the report writer's inbox (reports/write-path/sqlite/sqlite-report-batch.ts). A
 * committed report lands here first, in a table with no index but its primary key, and the writer thread
 * moves the inbox into `reports` many at a time. Every index of `reports` is appended to at
 * its right edge, and SQLite rewrites ~5 pages of each one per commit however few entries it
 * adds: moving a thousand reports at once writes each index's pages once for all of them.
 * PostgreSQL writes `reports` directly and has no inbox.
 *
 * The inbox has the columns and the constraints of `reports`, so that whatever it accepts the
 * move (`insert … select`) accepts too: a report that cannot be stored fails its own submission
 * at once, and never stays stuck in the inbox. Its id is unique in the inbox (primary key) and
 * against `reports` (the trigger: one seek in their primary key per insert).
 */
export function reportInboxMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'sqlite') return;
      await db.schema
        .createTable('report_inbox')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('tool_name', 'text')
        .addColumn('source', 'text')
        .addColumn('details', 'text', (c) => c.notNull())
        .addColumn('metadata', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await sql`
        create trigger report_inbox_id_unique before insert on report_inbox
        when exists (select 1 from reports where id = new.id)
        begin
          select raise(abort, 'UNIQUE constraint failed: reports.id');
        end
      `.execute(db);
    },
  };
}
