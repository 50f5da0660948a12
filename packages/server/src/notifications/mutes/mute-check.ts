import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Channel } from '../notification-port.js';
import { activeMuteRows } from './mute.repository.js';

/** Which destinations an issue is muted for now: all of the project's, or these. */
export interface MutedDestinations {
  all: boolean;
  ids: ReadonlySet<string>;
}

export async function mutedDestinations(
  db: Kysely<DB>,
  projectId: string,
  issueId: string,
  now = new Date(),
): Promise<MutedDestinations> {
  const rows = await activeMuteRows(db, projectId, issueId, now);
  return {
    all: rows.some((row) => row.destination_id === null),
    ids: new Set(rows.flatMap((row) => (row.destination_id ? [row.destination_id] : []))),
  };
}

export function isMutedFor(muted: MutedDestinations, destinationId: string): boolean {
  return muted.all || muted.ids.has(destinationId);
}

/**
 * A channel that sends nothing for an issue muted for its destination at the time of the
 * attempt: the attempt ends as delivered (`status` absent, `error` saying why), so it is neither
 * retried nor counted against the destination. Messages about no issue (quota, digest) pass.
 */
export function skipMuted(db: Kysely<DB>, channel: Channel): Channel {
  return async (target, message) => {
    const issueId = message.payload.data.issue?.id;
    if (issueId) {
      const muted = await mutedDestinations(db, message.payload.data.project.id, issueId);
      if (isMutedFor(muted, target.id)) return { ok: true, error: 'muted' };
    }
    return channel(target, message);
  };
}
