import type { Kysely } from 'kysely';
import { compiledShapes } from '../db/compiled-shapes.js';
import { type DB, toDate } from '../db/schema.js';

export async function insertApiKey(
  db: Kysely<DB>,
  row: {
    id: string;
    accountId: string;
    name: string;
    prefix: string;
    keyHash: string;
    createdAt: Date;
    /** Space-separated ApiKeyScope values. */
    scopes: string;
  },
): Promise<void> {
  await db
    .insertInto('api_keys')
    .values({
      id: row.id,
      account_id: row.accountId,
      name: row.name,
      prefix: row.prefix,
      key_hash: row.keyHash,
      created_at: row.createdAt.toISOString(),
      last_used_at: null,
      revoked_at: null,
      scopes: row.scopes,
    })
    .execute();
}

export async function findApiKeyByHash(db: Kysely<DB>, keyHash: string) {
  const { rows } = await db.executeQuery(apiKeyByHash(db, {}, { keyHash }));
  return rows[0];
}

/** Asked by every request with an API key: compiled once (compiled-shapes.ts). */
const apiKeyByHash = compiledShapes((db: Kysely<DB>, _shape: object, p: { keyHash: string }) =>
  db
    .selectFrom('api_keys')
    .select(['id', 'account_id', 'name', 'prefix', 'revoked_at', 'last_used_at', 'scopes'])
    .where('key_hash', '=', p.keyHash),
);

export async function listApiKeysOfAccount(db: Kysely<DB>, accountId: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'name', 'prefix', 'created_at', 'last_used_at', 'revoked_at', 'scopes'])
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function revokeApiKey(db: Kysely<DB>, accountId: string, keyId: string, at: Date) {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: at.toISOString() })
    .where('id', '=', keyId)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** How stale `last_used_at` may get: a minute. */
const TOUCH_EVERY_MS = 60_000;

/**
 * Records use, at most once a minute per key: a write per read request would make every read
 * contend with report inserts for the database's single writer. The key as just read says
 * whether it is due, so a key used within the minute costs no statement at all; the update's
 * own condition keeps concurrent requests (and instances) from writing it twice. Returns
 * whether it was due (the caller's copy of the key is then out of date).
 */
export async function touchApiKey(
  db: Kysely<DB>,
  key: { id: string; last_used_at: Date | string | null },
  now: Date,
): Promise<boolean> {
  const staleBefore = new Date(now.getTime() - TOUCH_EVERY_MS);
  if (key.last_used_at !== null && toDate(key.last_used_at) >= staleBefore) return false;
  await db
    .updateTable('api_keys')
    .set({ last_used_at: now.toISOString() })
    .where('id', '=', key.id)
    .where((eb) =>
      eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', staleBefore.toISOString())]),
    )
    .execute();
  return true;
}
