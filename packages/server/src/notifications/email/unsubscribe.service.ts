import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { newId } from '../../ids.js';
import { insertMute } from '../mutes/mute.repository.js';
import { mutedDestinations } from '../mutes/mute-check.js';
import { type LinkClaims, notificationLinkKey, verifyLink } from './link-token.js';

export type UnsubscribeAction = 'unsubscribe' | 'mute';

export async function readLink(db: Kysely<DB>, token: string): Promise<LinkClaims | null> {
  return verifyLink(await notificationLinkKey(db), token);
}

/**
 * What an email's link does, no sign-in needed (the signed token is the permission):
 * `unsubscribe` stops this destination's emails to this address; `mute` mutes the email's issue
 * for this destination until someone unmutes it. Both are idempotent, so a second click, or a
 * mail client's one-click POST after the user's, changes nothing.
 */
export async function applyLink(
  db: Kysely<DB>,
  claims: LinkClaims,
  action: UnsubscribeAction,
): Promise<void> {
  const now = new Date();
  if (action === 'unsubscribe') {
    await db
      .insertInto('notification_unsubscribes')
      .values({
        destination_id: claims.destinationId,
        address: claims.address.toLowerCase(),
        created_at: now.toISOString(),
      })
      .onConflict((oc) => oc.columns(['destination_id', 'address']).doNothing())
      .execute();
    return;
  }
  if (!claims.issueId) return;
  const muted = await mutedDestinations(db, claims.projectId, claims.issueId, now);
  if (muted.all || muted.ids.has(claims.destinationId)) return;
  await insertMute(db, {
    id: newId(),
    project_id: claims.projectId,
    issue_id: claims.issueId,
    destination_id: claims.destinationId,
    until: null,
    until_count: null,
    created_at: now,
  });
}
