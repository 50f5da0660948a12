import type { Kysely } from 'kysely';
import type { Dialect } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { newId } from '../ids.js';
import type { EnqueueNotifications, NotificationEntry } from './notification-port.js';

/**
 * The outbox's producer side (notification-port.ts): one row per event, inserted in the
 * producer's transaction with one statement whatever the number of entries. Which destinations
 * hear it is decided later, by the deliverer (fan-out.ts), off the producer's path.
 */
export const enqueueNotifications: EnqueueNotifications = async (trx, entries) => {
  if (entries.length === 0) return;
  const now = Date.now();
  await trx
    .insertInto('notification_outbox')
    .values(
      entries.map((entry) => ({
        id: newId(now),
        project_id: entry.projectId,
        type: entry.type,
        issue_id: entry.issueId ?? null,
        report_id: entry.reportId ?? null,
        data: entry.data === undefined ? null : JSON.stringify(entry.data),
        destination_id: entry.destinationId ?? null,
        created_at: now,
      })),
    )
    .execute();
};

export interface OutboxRow {
  id: string;
  entry: NotificationEntry;
  createdAt: number;
}

/**
 * The oldest events still to fan out, in the caller's transaction; on PostgreSQL locked and
 * skipping those another instance holds, so each is fanned out once.
 */
export async function takeOutboxRows(
  trx: Kysely<DB>,
  dialect: Dialect,
  limit: number,
): Promise<OutboxRow[]> {
  let query = trx.selectFrom('notification_outbox').selectAll().orderBy('id').limit(limit);
  if (dialect === 'postgres') query = query.forUpdate().skipLocked();
  const rows = await query.execute();
  return rows.map((row) => ({
    id: row.id,
    createdAt: Number(row.created_at),
    entry: {
      projectId: row.project_id,
      type: row.type as NotificationEntry['type'],
      ...(row.issue_id ? { issueId: row.issue_id } : {}),
      ...(row.report_id ? { reportId: row.report_id } : {}),
      ...(row.data ? { data: JSON.parse(row.data) as Record<string, unknown> } : {}),
      ...(row.destination_id ? { destinationId: row.destination_id } : {}),
    },
  }));
}

export async function deleteOutboxRows(trx: Kysely<DB>, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await trx.deleteFrom('notification_outbox').where('id', 'in', ids).execute();
}
