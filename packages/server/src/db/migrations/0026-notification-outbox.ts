import { type Kysely, type Migration, sql } from 'kysely';

/**
 * The transactional outbox and its deliveries (notifications/).
 * - `notification_outbox`: one row per event, written by its producer in the transaction that
 *   makes the change (a new or regressed issue: one insert, whatever the project's
 *   destinations). The deliverer turns each into messages, one per subscribed destination, and
 *   deletes it, in one transaction.
 * - `notification_messages`: one notification to one destination; its `id` is the
 *   `webhook-id`, the same on every attempt. `payload` is built once, so every attempt sends
 *   the same body. A deliverer claims a due message by setting `lease_until` (on PostgreSQL
 *   after `for update skip locked`), so one instance at a time sends it; a lease left by a
 *   crash runs out and the message is sent again.
 * - `notification_attempts`: the delivery log, one row per attempt.
 * Times are epoch milliseconds (`bigint`).
 */
export function notificationOutboxMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('notification_outbox')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('issue_id', 'text')
        .addColumn('report_id', 'text')
        .addColumn('data', 'text')
        .addColumn('destination_id', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('notification_messages')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('destination_id', 'text', (c) => c.notNull())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('max_attempts', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_at', 'bigint')
        .addColumn('lease_until', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      // The deliverer's due messages: only pending ones are in it, so it stays small.
      await db.schema
        .createIndex('notification_messages_due')
        .on('notification_messages')
        .columns(['next_attempt_at'])
        .where(sql.ref('status'), '=', 'pending')
        .execute();
      await db.schema
        .createIndex('notification_messages_by_destination')
        .on('notification_messages')
        .columns(['destination_id', 'created_at'])
        .execute();

      await db.schema
        .createTable('notification_attempts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('message_id', 'text', (c) => c.notNull())
        .addColumn('destination_id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('response_status', 'integer')
        .addColumn('error', 'text')
        .addColumn('next_attempt_at', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('notification_attempts_by_destination')
        .on('notification_attempts')
        .columns(['destination_id', 'id'])
        .execute();
    },
  };
}
