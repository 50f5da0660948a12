import type { Delivery, NotificationPayload, NotificationType } from '@debrief/protocol';
import { formatWireTimestamp } from '@debrief/protocol';
import type { Kysely } from 'kysely';
import type { Dialect } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { newId } from '../ids.js';

export interface NewMessage {
  id: string;
  destinationId: string;
  projectId: string;
  type: NotificationType;
  payload: NotificationPayload;
  maxAttempts: number;
  now: number;
}

export async function insertMessages(trx: Kysely<DB>, messages: readonly NewMessage[]) {
  if (messages.length === 0) return;
  await trx
    .insertInto('notification_messages')
    .values(
      messages.map((m) => ({
        id: m.id,
        destination_id: m.destinationId,
        project_id: m.projectId,
        type: m.type,
        payload: JSON.stringify(m.payload),
        status: 'pending',
        attempts: 0,
        max_attempts: m.maxAttempts,
        next_attempt_at: m.now,
        lease_until: null,
        created_at: m.now,
        updated_at: m.now,
      })),
    )
    .execute();
}

/** A message this instance holds the lease of, to send once. */
export interface ClaimedMessage {
  id: string;
  destinationId: string;
  type: NotificationType;
  payload: NotificationPayload;
  /** Attempts made before this one. */
  attempts: number;
  /** The addresses an email message has already reached (lowercased), on an earlier attempt. */
  doneRecipients: string[];
  maxAttempts: number;
  createdAt: number;
  /** The lease this instance set: the outcome is written only while it still holds it. */
  lease: number;
}

/**
 * Claims due messages of active destinations: each leased until `lease` so no other deliverer
 * takes it meanwhile; on PostgreSQL the rows are locked with `skip locked` while claimed, so
 * two instances never claim one message. `ids`: only these (a "send a test").
 */
export async function claimDueMessages(
  db: Kysely<DB>,
  dialect: Dialect,
  { now, lease, limit, ids }: { now: number; lease: number; limit: number; ids?: string[] },
): Promise<ClaimedMessage[]> {
  // A read first, outside a transaction: nearly every round finds nothing due.
  const due = await db
    .selectFrom('notification_messages')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .limit(1)
    .executeTakeFirst();
  if (!due) return [];
  return db.transaction().execute(async (trx) => {
    let query = trx
      .selectFrom('notification_messages')
      .select([
        'id',
        'destination_id',
        'type',
        'payload',
        'attempts',
        'max_attempts',
        'created_at',
        'done_recipients',
      ])
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
      .orderBy('next_attempt_at')
      .limit(limit);
    if (ids) query = query.where('id', 'in', ids);
    else
      query = query.where('destination_id', 'in', (eb) =>
        eb
          .selectFrom('notification_destinations')
          .select('notification_destinations.id')
          .where('notification_destinations.status', '=', 'active'),
      );
    if (dialect === 'postgres') query = query.forUpdate().skipLocked();
    const rows = await query.execute();
    if (rows.length === 0) return [];
    await trx
      .updateTable('notification_messages')
      .set({ lease_until: lease })
      .where(
        'id',
        'in',
        rows.map((row) => row.id),
      )
      .execute();
    return rows.map((row) => ({
      id: row.id,
      destinationId: row.destination_id,
      type: row.type as NotificationType,
      payload: JSON.parse(row.payload) as NotificationPayload,
      attempts: row.attempts,
      doneRecipients: row.done_recipients ? (JSON.parse(row.done_recipients) as string[]) : [],
      maxAttempts: row.max_attempts,
      createdAt: Number(row.created_at),
      lease,
    }));
  });
}

/**
 * Writes the addresses a message has reached so far, at once after each is accepted, so a retry
 * never sends to them again. Only while this deliverer still holds the lease (false otherwise).
 */
export async function recordDoneRecipients(
  db: Kysely<DB>,
  message: Pick<ClaimedMessage, 'id' | 'lease'>,
  addresses: readonly string[],
): Promise<boolean> {
  const updated = await db
    .updateTable('notification_messages')
    .set({ done_recipients: JSON.stringify(addresses) })
    .where('id', '=', message.id)
    .where('lease_until', '=', message.lease)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** How an attempt ended, as the deliverer decided. */
export interface AttemptOutcome {
  succeeded: boolean;
  responseStatus: number | null;
  error: string | null;
  /** When the next attempt is due; null: none (succeeded, given up, or the destination is gone). */
  nextAttemptAt: number | null;
  at: number;
}

/**
 * Writes an attempt's outcome: the message's state and a row of the log. Nothing when the
 * lease ran out and another deliverer may hold the message (false).
 */
export async function recordAttempt(
  trx: Kysely<DB>,
  message: ClaimedMessage,
  outcome: AttemptOutcome,
): Promise<boolean> {
  const attempt = message.attempts + 1;
  const status = outcome.succeeded
    ? 'succeeded'
    : outcome.nextAttemptAt === null
      ? 'failed'
      : 'pending';
  const updated = await trx
    .updateTable('notification_messages')
    .set({
      status,
      attempts: attempt,
      next_attempt_at: outcome.nextAttemptAt,
      lease_until: null,
      updated_at: outcome.at,
    })
    .where('id', '=', message.id)
    .where('lease_until', '=', message.lease)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) return false;
  await trx
    .insertInto('notification_attempts')
    .values({
      id: newId(outcome.at),
      message_id: message.id,
      destination_id: message.destinationId,
      type: message.type,
      attempt,
      status: outcome.succeeded ? 'succeeded' : 'failed',
      response_status: outcome.responseStatus,
      error: outcome.error,
      next_attempt_at: outcome.nextAttemptAt,
      created_at: outcome.at,
    })
    .execute();
  return true;
}

/** A gone destination's waiting messages end (failed); nothing will be sent to it again. */
export async function failPendingMessages(trx: Kysely<DB>, destinationId: string, now: number) {
  await trx
    .updateTable('notification_messages')
    .set({ status: 'failed', next_attempt_at: null, lease_until: null, updated_at: now })
    .where('destination_id', '=', destinationId)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * One process per SQLite file: a lease left by the process before it (killed mid-delivery)
 * is void at start, so its messages go out again at once instead of when the lease runs out.
 */
export async function clearLeases(db: Kysely<DB>): Promise<void> {
  await db
    .updateTable('notification_messages')
    .set({ lease_until: null })
    .where('status', '=', 'pending')
    .where('lease_until', 'is not', null)
    .execute();
}

/** Forgets finished messages and attempts older than `before`: the log keeps a bounded past. */
export async function pruneDeliveries(db: Kysely<DB>, before: number): Promise<void> {
  await db.deleteFrom('notification_attempts').where('created_at', '<', before).execute();
  await db
    .deleteFrom('notification_messages')
    .where('status', '<>', 'pending')
    .where('updated_at', '<', before)
    .execute();
}

const wire = (ms: number | string | null) =>
  ms === null ? null : formatWireTimestamp(new Date(Number(ms)));

/**
 * The delivery log of a destination, newest first: every attempt, and before them the
 * messages waiting for their first.
 */
export async function listDeliveries(
  db: Kysely<DB>,
  destinationId: string,
  limit: number,
): Promise<Delivery[]> {
  const waiting = await db
    .selectFrom('notification_messages')
    .select(['id', 'type', 'created_at', 'next_attempt_at'])
    .where('destination_id', '=', destinationId)
    .where('status', '=', 'pending')
    .where('attempts', '=', 0)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
  const attempts = await db
    .selectFrom('notification_attempts')
    .selectAll()
    .where('destination_id', '=', destinationId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  // Read apart: a message whose first attempt was written between the two reads shows as that.
  const attempted = new Set(attempts.map((row) => row.message_id));
  const pending: Delivery[] = waiting
    .filter((row) => !attempted.has(row.id))
    .map((row) => ({
      id: row.id.replace(/^msg_/, ''),
      message_id: row.id,
      type: row.type as NotificationType,
      attempt: 1,
      status: 'pending',
      response_status: null,
      error: null,
      created_at: wire(row.created_at) as string,
      next_attempt_at: wire(row.next_attempt_at),
    }));
  const done: Delivery[] = attempts.map((row) => ({
    id: row.id,
    message_id: row.message_id,
    type: row.type as NotificationType,
    attempt: row.attempt,
    status: row.status as Delivery['status'],
    response_status: row.response_status,
    error: row.error,
    created_at: wire(row.created_at) as string,
    next_attempt_at: wire(row.next_attempt_at),
  }));
  return [...pending, ...done].slice(0, limit);
}

export async function findAttemptOf(db: Kysely<DB>, messageId: string): Promise<Delivery | null> {
  const row = await db
    .selectFrom('notification_attempts')
    .selectAll()
    .where('message_id', '=', messageId)
    .orderBy('id', 'desc')
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    message_id: row.message_id,
    type: row.type as NotificationType,
    attempt: row.attempt,
    status: row.status as Delivery['status'],
    response_status: row.response_status,
    error: row.error,
    created_at: wire(row.created_at) as string,
    next_attempt_at: wire(row.next_attempt_at),
  };
}
