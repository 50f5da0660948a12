import type { Kysely, Migration } from 'kysely';

/**
 * A project's notification destinations (notifications/destination.repository.ts).
 * - `events`, `filter`, `spike`, `metadata_keys`, `to_addresses`: JSON text, read whole with
 *   the row (a project has a handful of destinations; nothing filters on them in SQL).
 * - `secret`: a webhook's signing secret (`whsec_…`). Kept as it is, because the server signs
 *   with it; never answered after the create or rotation that made it, never logged.
 *   `previous_secret` still signs beside it until `previous_secret_until` (a rotation's 24 h).
 * - `status`: active | paused | failing | gone. `failing_since`: the first failed delivery of
 *   the current run of failures; a day of them pauses the destination (`failing`).
 * - Times are epoch milliseconds (`bigint`), compared alike on both dialects.
 */
export function notificationDestinationsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('notification_destinations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('url', 'text')
        .addColumn('to_addresses', 'text')
        .addColumn('events', 'text', (c) => c.notNull())
        .addColumn('filter', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('spike', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('digest_hour', 'integer')
        .addColumn('metadata_keys', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
        .addColumn('secret', 'text')
        .addColumn('previous_secret', 'text')
        .addColumn('previous_secret_until', 'bigint')
        .addColumn('failing_since', 'bigint')
        .addColumn('last_delivery_at', 'bigint')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('notification_destinations_by_project')
        .on('notification_destinations')
        .columns(['project_id', 'created_at'])
        .execute();
    },
  };
}
