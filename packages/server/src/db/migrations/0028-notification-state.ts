import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * What the notification producers remember, so each event fires once:
 * - `notification_mutes`: an issue muted for one destination (or all, `destination_id` null),
 *   until a time (`until`), until it has `until_count` reports, or for good.
 * - `notification_unsubscribes`: an email address that left one email destination.
 * - `notification_marks`: one row per thing already announced or consumed, claimed with an
 *   insert that only one writer can win (`scope`, `subject` unique): a spike of an issue for a
 *   destination, a month's quota crossing, a throttle episode, the `report.created` cursor and the
 *   last digest day of a destination. The claim commits with the outbox rows it causes.
 */
export function notificationStateMigration(dialect: Dialect): Migration {
  const timestamp = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('notification_mutes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull())
        .addColumn('issue_id', 'text', (c) => c.notNull())
        .addColumn('destination_id', 'text')
        .addColumn('until', timestamp)
        .addColumn('until_count', 'integer')
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('notification_mutes_by_issue')
        .on('notification_mutes')
        .columns(['project_id', 'issue_id'])
        .execute();
      await db.schema
        .createTable('notification_unsubscribes')
        .addColumn('destination_id', 'text', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .addPrimaryKeyConstraint('notification_unsubscribes_pk', ['destination_id', 'address'])
        .execute();
      await db.schema
        .createTable('notification_marks')
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('updated_at', timestamp, (c) => c.notNull())
        .addPrimaryKeyConstraint('notification_marks_pk', ['scope', 'subject'])
        .execute();
    },
  };
}
