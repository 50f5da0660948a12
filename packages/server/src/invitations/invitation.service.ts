import { createHash, randomBytes } from 'node:crypto';
import {
  type CreatedInvitation,
  INVITATION_DEFAULT_HOURS,
  type InvitationInfo,
  type InvitationStatus,
} from '@debrief/protocol';
import type { Kysely } from 'kysely';
import { normalizeEmail } from '../accounts/account.service.js';
import { type DB, toDate } from '../db/schema.js';
import { toWireTimestamp } from '../db/wire-timestamp.js';
import { ApiError } from '../errors/api-error.js';
import { newId } from '../ids.js';
import { HOUR_MS } from '../time/utc-time.js';
import {
  findInvitationById,
  findInvitationByTokenHash,
  insertInvitation,
  listInvitationRows,
  revokeInvitationRow,
} from './invitation.repository.js';

/** The most recent invitations the console lists; older ones stay in the table. */
const LIST_LIMIT = 200;

/** 192 random bits: the link is the credential, so nothing to guess and nothing to enumerate. */
function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** A SHA-256 of a high-entropy token is enough (as for API keys): a leaked table admits nobody. */
function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function invitationUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/signup?invite=${encodeURIComponent(token)}`;
}

interface InvitationRow {
  id: string;
  email: string | null;
  created_at: Date | string;
  expires_at: Date | string;
  used_at: Date | string | null;
  revoked_at: Date | string | null;
}

function statusOf(row: InvitationRow, now: Date): InvitationStatus {
  if (row.used_at !== null) return 'used';
  if (row.revoked_at !== null) return 'revoked';
  return toDate(row.expires_at).getTime() <= now.getTime() ? 'expired' : 'pending';
}

function toInfo(row: InvitationRow, now: Date): InvitationInfo {
  return {
    id: row.id,
    email: row.email,
    status: statusOf(row, now),
    created_at: toWireTimestamp(row.created_at),
    expires_at: toWireTimestamp(row.expires_at),
    used_at: toWireTimestamp(row.used_at),
    revoked_at: toWireTimestamp(row.revoked_at),
  };
}

/** A one-time sign-up link. `createdBy` is the operator's account, or null from the CLI. */
export async function createInvitation(
  db: Kysely<DB>,
  input: {
    publicUrl: string;
    email?: string | null;
    expiresInHours?: number;
    createdBy: string | null;
  },
): Promise<CreatedInvitation> {
  const token = newToken();
  const createdAt = new Date();
  const hours = input.expiresInHours ?? INVITATION_DEFAULT_HOURS;
  const row = {
    id: newId(),
    email: input.email ? normalizeEmail(input.email) : null,
    created_at: createdAt,
    expires_at: new Date(createdAt.getTime() + hours * HOUR_MS),
    used_at: null,
    revoked_at: null,
  };
  await insertInvitation(db, {
    id: row.id,
    tokenHash: hashToken(token),
    email: row.email,
    createdBy: input.createdBy,
    createdAt,
    expiresAt: row.expires_at,
  });
  return { ...toInfo(row, createdAt), url: invitationUrl(input.publicUrl, token) };
}

export async function listInvitations(db: Kysely<DB>): Promise<InvitationInfo[]> {
  const now = new Date();
  return (await listInvitationRows(db, LIST_LIMIT)).map((row) => toInfo(row, now));
}

/** Revoked at once: the link stops working. Revoking twice is fine; a used one is a 409. */
export async function revokeInvitation(db: Kysely<DB>, id: string): Promise<void> {
  if (await revokeInvitationRow(db, id, new Date())) return;
  const row = await findInvitationById(db, id);
  if (!row) throw new ApiError('not_found', `No invitation has the id ${id}.`);
  if (row.used_at !== null)
    throw new ApiError('conflict', 'This invitation was already used; there is nothing to revoke.');
}

function invalid(detail: string): ApiError {
  return new ApiError('invalid_invitation', detail);
}

/**
 * The invitation behind `token`, if it can admit `email` now; otherwise 403
 * `invalid_invitation` saying why (the token is unguessable, so the reason leaks nothing).
 * Checked before the password is hashed; `useInvitation` re-checks atomically at insert.
 */
export async function checkInvitation(db: Kysely<DB>, token: string, email: string) {
  const row = await findInvitationByTokenHash(db, hashToken(token));
  const ask = 'Ask the operator of this Debrief instance for a new invitation link.';
  if (!row)
    throw invalid(`This invitation link is not valid: check that it was copied whole. ${ask}`);
  switch (statusOf(row, new Date())) {
    case 'used':
      throw invalid(`This invitation link was already used; each link admits one account. ${ask}`);
    case 'revoked':
      throw invalid(`This invitation link was revoked by the operator. ${ask}`);
    case 'expired':
      throw invalid(`This invitation link expired on ${toWireTimestamp(row.expires_at)}. ${ask}`);
    case 'pending':
      break;
  }
  if (row.email !== null && row.email !== email) {
    throw invalid(
      'This invitation link was made for another email address. Sign up with the address the invitation was sent to.',
    );
  }
  return { id: row.id };
}
