import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * On SQLite, one covering index on reports instead of four: (project, time, id) carrying
 * outcome, tool_name and source. Every list, filter and count of a project walks it without
 * touching the table; a filter by outcome, tool or source reads the project's entries newest
 * first and keeps those that match, instead of seeking to them.
 *
 * Why: each index is a b-tree that a commit appends to, and SQLite rebalances an index leaf
 * with its neighbours when it fills, so a commit of ~24 reports rewrote ~5 pages per index:
 * 30 WAL frames of 4 KiB, and the fsync of all of them, for ~7 KiB of reports. With one
 * index a commit writes ~15, and ingest on SQLite is 10–30 % faster (BENCHMARKS.md, item 7).
 * The price is on rare filters: page 1 of a tool used once is a walk of the whole project,
 * ~8 ms at 100,000 reports instead of a seek. The stats need no walk without a date range
 * (report_counts). PostgreSQL keeps the four indexes: its ingest is bound by row locks, not
 * by index writes, and it is where projects with millions of reports belong.
 *
 * The new index is built before the old ones go, so no query is ever left without one.
 */
export function sqliteReportIndexMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'sqlite') return;
      await db.schema
        .createIndex('reports_by_project_time_labels')
        .on('reports')
        .columns(['project_id', 'created_at', 'id', 'outcome', 'tool_name', 'source'])
        .execute();
      for (const index of [
        'reports_by_project_time',
        'reports_by_project_outcome',
        'reports_by_project_tool',
        'reports_by_project_source',
      ]) {
        await db.schema.dropIndex(index).execute();
      }
    },
  };
}
