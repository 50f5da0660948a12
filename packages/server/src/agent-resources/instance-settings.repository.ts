import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';

/** `instance_settings` (migration 0003): typed here, so the shared schema file stays untouched. */
interface InstanceSettingsTable {
  key: string;
  value: string;
}

function withSettings(db: Kysely<DB>) {
  return db.withTables<{ instance_settings: InstanceSettingsTable }>();
}

export async function findSetting(db: Kysely<DB>, key: string): Promise<string | null> {
  const row = await withSettings(db)
    .selectFrom('instance_settings')
    .select('value')
    .where('key', '=', key)
    .executeTakeFirst();
  return row?.value ?? null;
}

/** Inserts the setting unless the key exists; true when this call set it. */
export async function insertSettingIfAbsent(
  db: Kysely<DB>,
  key: string,
  value: string,
): Promise<boolean> {
  const result = await withSettings(db)
    .insertInto('instance_settings')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** The operator: the first account created on the instance (UUIDv7 ids break creation ties). */
export async function findFirstAccount(db: Kysely<DB>) {
  return db
    .selectFrom('accounts')
    .select(['id', 'email'])
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .limit(1)
    .executeTakeFirst();
}
