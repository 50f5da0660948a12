import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../database.js';
import { queueRowsInsertSql } from '../grouping-queue-row.js';

/**
 * The reports waiting for their issue move out of `report_issues` into a queue of
 * their own, `grouping_queue` (id, created_at, report_ids): a row per stored batch that was not
 * grouped as it was stored, naming its reports (a JSON array of ids, in report order), from when
 * its first report was stored. `report_issues` keeps only placed reports, each inserted once by
 * the grouper with its issue. issues/pipeline/grouping-queue.ts reads and consumes the queue, and says
 * why: a row per report inserted without an issue and updated by the grouper costs PostgreSQL
 * three times the queue's insert.
 *
 * The reports still waiting are queued here in report order, in rows as db/grouping-queue-row.ts
 * writes them, their rows of `report_issues` deleted, and with them the partial index of the
 * waiting (0017).
 */

export function groupingQueueMigration(dialect: Dialect): Migration {
  const timestamp = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('grouping_queue')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .addColumn('report_ids', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('grouping_queue_by_time')
        .on('grouping_queue')
        .columns(['created_at', 'id'])
        .execute();
      const queue = queueRowsInsertSql(dialect, {
        id: 'report_id',
        source: 'from report_issues where issue_id is null',
        order: 'created_at, report_id',
      });
      await sql.raw(queue).execute(db);
      await sql`delete from report_issues where issue_id is null`.execute(db);
      await db.schema.dropIndex('report_issues_ungrouped').execute();
    },
  };
}
