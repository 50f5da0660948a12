import type { Kysely, Migration } from 'kysely';

/**
 * Settings of the instance itself, one row per key (e.g. `self_project_id`: the project that
 * holds reports about this Debrief instance). The primary key makes "set once" race-safe:
 * of two concurrent inserts of a key, exactly one wins, on SQLite and PostgreSQL alike.
 */
export function instanceSettingsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('instance_settings')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
    },
  };
}
