import type { Kysely } from 'kysely';
import { compiledShapes } from '../db/compiled-shapes.js';
import type { DB } from '../db/schema.js';

export async function insertSession(
  db: Kysely<DB>,
  row: { idHash: string; accountId: string; csrfToken: string; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('sessions')
    .values({
      id_hash: row.idHash,
      account_id: row.accountId,
      csrf_token: row.csrfToken,
      created_at: row.createdAt.toISOString(),
      expires_at: row.expiresAt.toISOString(),
    })
    .execute();
}

/** The session and its account, if the session has not expired. */
export async function findLiveSession(db: Kysely<DB>, idHash: string, now: Date) {
  const params = { idHash, now: now.toISOString() };
  const { rows } = await db.executeQuery(liveSession(db, {}, params));
  return rows[0];
}

/** Asked by every request of the dashboard: compiled once (compiled-shapes.ts). */
const liveSession = compiledShapes(
  (db: Kysely<DB>, _shape: object, p: { idHash: string; now: string }) =>
    db
      .selectFrom('sessions')
      .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
      .select([
        'sessions.account_id as account_id',
        'sessions.csrf_token as csrf_token',
        'sessions.expires_at as expires_at',
        'accounts.email as email',
      ])
      .where('sessions.id_hash', '=', p.idHash)
      .where('sessions.expires_at', '>', p.now),
);

export async function extendSession(db: Kysely<DB>, idHash: string, expiresAt: Date) {
  await db
    .updateTable('sessions')
    .set({ expires_at: expiresAt.toISOString() })
    .where('id_hash', '=', idHash)
    .execute();
}

export async function deleteSession(db: Kysely<DB>, idHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
}

export async function deleteExpiredSessions(db: Kysely<DB>, now: Date): Promise<void> {
  await db.deleteFrom('sessions').where('expires_at', '<=', now.toISOString()).execute();
}
