import type { Kysely } from 'kysely';
import type { Dialect } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { newId } from '../ids.js';
import { insertMessages, type NewMessage } from './delivery.repository.js';
import { type DestinationRecord, listActiveDestinations } from './destination.repository.js';
import { buildPayload, passesFilter, readSubject } from './notification-payload.js';
import { deleteOutboxRows, takeOutboxRows } from './outbox.repository.js';

/** Events fanned out per transaction. */
const FAN_OUT_BATCH = 50;

/** A message's `webhook-id`: `msg_` and 32 hex characters, the same on every attempt. */
export const newMessageId = (now: number) => `msg_${newId(now)}`;

/**
 * Turns the oldest outbox events into messages, one per active destination that subscribes
 * to the event's type (or the one it names) and whose filter it passes, each with its payload
 * built now; the events leave the outbox in the same transaction, so each is fanned out once
 * (on PostgreSQL the rows are locked, skipping those another instance holds). Returns how many
 * events it took.
 */
export async function fanOut(
  db: Kysely<DB>,
  dialect: Dialect,
  {
    publicUrl,
    maxAttempts,
    now = Date.now(),
  }: { publicUrl: string; maxAttempts: number; now?: number },
): Promise<number> {
  // A read first, outside a transaction: nearly every round finds the outbox empty.
  const any = await db.selectFrom('notification_outbox').select('id').limit(1).executeTakeFirst();
  if (!any) return 0;
  return db.transaction().execute(async (trx) => {
    const rows = await takeOutboxRows(trx, dialect, FAN_OUT_BATCH);
    if (rows.length === 0) return 0;
    const destinations = await listActiveDestinations(trx, [
      ...new Set(rows.map((row) => row.entry.projectId)),
    ]);
    const messages: NewMessage[] = [];
    for (const { entry } of rows) {
      const targets = destinations.filter((d) => hears(d, entry));
      if (targets.length === 0) continue;
      const subject = await readSubject(trx, entry);
      if (!subject) continue;
      for (const destination of targets) {
        if (!entry.destinationId && !passesFilter(destination, subject)) continue;
        messages.push({
          id: newMessageId(now),
          destinationId: destination.id,
          projectId: entry.projectId,
          type: entry.type,
          payload: buildPayload(publicUrl, entry, subject, destination, new Date(now)),
          maxAttempts,
          now,
        });
      }
    }
    await insertMessages(trx, messages);
    await deleteOutboxRows(
      trx,
      rows.map((row) => row.id),
    );
    return rows.length;
  });
}

function hears(
  destination: DestinationRecord,
  entry: { projectId: string; type: string; destinationId?: string },
): boolean {
  if (destination.projectId !== entry.projectId) return false;
  if (entry.destinationId) return destination.id === entry.destinationId;
  return destination.events.includes(entry.type as DestinationRecord['events'][number]);
}
