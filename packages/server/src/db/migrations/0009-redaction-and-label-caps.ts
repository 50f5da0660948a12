import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Redaction and the caps on distinct labels.
 * - `reports.redactions` (and the SQLite inbox's, which mirrors `reports`): how many credentials
 *   were replaced by `[REDACTED:<kind>]` before the report was stored (reports/redaction/).
 * - `projects.redact_personal_data`: 1 = also redact email addresses and phone numbers.
 * - An index on `report_counts (project_id, source)`: the cap on distinct sources asks whether
 *   a source is already known (reports/label-cap.ts); the primary key serves tool names
 *   (project_id, tool_name, …) but not sources.
 */
export function redactionAndLabelCapsMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('reports')
        .addColumn('redactions', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      if (dialect === 'sqlite') {
        await db.schema
          .alterTable('report_inbox')
          .addColumn('redactions', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
      }
      await db.schema
        .alterTable('projects')
        .addColumn('redact_personal_data', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex('report_counts_project_source')
        .on('report_counts')
        .columns(['project_id', 'source'])
        .execute();
    },
  };
}
