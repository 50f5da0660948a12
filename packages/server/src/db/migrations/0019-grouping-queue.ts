import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Issue 18: the reports waiting for their issue move out of `report_issues` into a queue of
 * their own, `grouping_queue` (id, created_at, report_ids): a row per stored batch that was not
 * grouped as it was stored, naming its reports (a JSON array of ids, in report order), from when
 * its first report was stored. `report_issues` keeps only placed reports, each inserted once by
 * the grouper with its issue. issues/grouping-queue.ts reads and consumes the queue, and says
 * why: the write path inserted a row per report without an issue, and the grouper updated it,
 * which cost PostgreSQL three times the insert it replaces.
 *
 * The reports still waiting are queued here in report order, QUEUE_ROW_REPORTS a row (the
 * grouper splits a row larger than its batch, but a row stays a bounded read), their rows of
 * `report_issues` deleted, and with them the partial index of the waiting (0017). A row's id is
 * the smallest of its report ids, unique as they are.
 */
const QUEUE_ROW_REPORTS = 1000;

export function groupingQueueMigration(dialect: Dialect): Migration {
  const timestamp = dialect === 'postgres' ? 'timestamptz' : 'text';
  const idsOf =
    dialect === 'postgres'
      ? sql`json_agg(report_id order by created_at, report_id)::text`
      : sql`json_group_array(report_id)`;
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
      // SQLite's json_group_array takes the rows in the order the subquery gives them.
      await sql`
        insert into grouping_queue (id, created_at, report_ids)
        select min(report_id), min(created_at), ${idsOf}
        from (
          select report_id, created_at,
            (row_number() over (order by created_at, report_id) - 1) / ${sql.lit(QUEUE_ROW_REPORTS)} as part
          from report_issues where issue_id is null
          order by created_at, report_id
        ) as waiting
        group by part
      `.execute(db);
      await sql`delete from report_issues where issue_id is null`.execute(db);
      await db.schema.dropIndex('report_issues_ungrouped').execute();
    },
  };
}
