import type { Kysely, Migration } from 'kysely';

/**
 * `notification_messages.done_recipients`: the addresses an email message has reached (a JSON
 * array of lowercased addresses; null: none yet). Written as each address is accepted, so a
 * retry after a partial failure sends only to the addresses still owed the message.
 */
export function notificationRecipientsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('notification_messages')
        .addColumn('done_recipients', 'text')
        .execute();
    },
  };
}
