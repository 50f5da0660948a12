import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';

export interface NewInvitation {
  id: string;
  tokenHash: string;
  email: string | null;
  createdBy: string | null;
  createdAt: Date;
  expiresAt: Date;
}

const COLUMNS = ['id', 'email', 'created_at', 'expires_at', 'used_at', 'revoked_at'] as const;

export async function insertInvitation(db: Kysely<DB>, invitation: NewInvitation): Promise<void> {
  await db
    .insertInto('invitations')
    .values({
      id: invitation.id,
      token_hash: invitation.tokenHash,
      email: invitation.email,
      created_by: invitation.createdBy,
      created_at: invitation.createdAt.toISOString(),
      expires_at: invitation.expiresAt.toISOString(),
      used_at: null,
      used_by: null,
      revoked_at: null,
    })
    .execute();
}

export async function findInvitationByTokenHash(db: Kysely<DB>, tokenHash: string) {
  return db
    .selectFrom('invitations')
    .select(COLUMNS)
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function findInvitationById(db: Kysely<DB>, id: string) {
  return db.selectFrom('invitations').select(COLUMNS).where('id', '=', id).executeTakeFirst();
}

/** Newest first. */
export async function listInvitationRows(db: Kysely<DB>, limit: number) {
  return db
    .selectFrom('invitations')
    .select(COLUMNS)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/**
 * Marks the invitation used by `accountId`, only if it is still unused, unrevoked and
 * unexpired at `now`: one conditional UPDATE, so of two sign-ups racing with one link exactly
 * one gets a row back. True when this call used it.
 */
export async function useInvitation(
  db: Kysely<DB>,
  id: string,
  accountId: string,
  now: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('invitations')
    .set({ used_at: now.toISOString(), used_by: accountId })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now.toISOString())
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Revokes an unused invitation; true when this call revoked it. */
export async function revokeInvitationRow(db: Kysely<DB>, id: string, now: Date) {
  const result = await db
    .updateTable('invitations')
    .set({ revoked_at: now.toISOString() })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
