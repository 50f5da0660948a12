import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

/**
 * `notification_marks`: one row per (scope, subject) that a producer has announced or consumed.
 * A claim is an insert that only one writer can win, made in the transaction that enqueues the
 * notification: two instances, or a retry after a crash, never announce one thing twice.
 */
export async function claimMark(
  db: Kysely<DB>,
  scope: string,
  subject: string,
  value: string,
  now: Date,
): Promise<boolean> {
  const result = await db
    .insertInto('notification_marks')
    .values({ scope, subject, value, updated_at: now.toISOString() })
    .onConflict((oc) => oc.columns(['scope', 'subject']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function findMark(
  db: Kysely<DB>,
  scope: string,
  subject: string,
): Promise<{ value: string; updated_at: Date | string } | undefined> {
  return db
    .selectFrom('notification_marks')
    .select(['value', 'updated_at'])
    .where('scope', '=', scope)
    .where('subject', '=', subject)
    .executeTakeFirst();
}

export async function findMarks(db: Kysely<DB>, scope: string, subjects: readonly string[]) {
  if (subjects.length === 0) return [];
  return db
    .selectFrom('notification_marks')
    .select(['subject', 'value', 'updated_at'])
    .where('scope', '=', scope)
    .where('subject', 'in', subjects)
    .execute();
}

/** Moves a mark from the value read to a new one; false when another writer moved it first. */
export async function advanceMark(
  db: Kysely<DB>,
  scope: string,
  subject: string,
  from: string,
  to: string,
  now: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('notification_marks')
    .set({ value: to, updated_at: now.toISOString() })
    .where('scope', '=', scope)
    .where('subject', '=', subject)
    .where('value', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function touchMark(db: Kysely<DB>, scope: string, subject: string, now: Date) {
  await db
    .updateTable('notification_marks')
    .set({ updated_at: now.toISOString() })
    .where('scope', '=', scope)
    .where('subject', '=', subject)
    .execute();
}

export async function deleteMarks(db: Kysely<DB>, scope: string, subjects: readonly string[]) {
  if (subjects.length === 0) return;
  await db
    .deleteFrom('notification_marks')
    .where('scope', '=', scope)
    .where('subject', 'in', subjects)
    .execute();
}

/** Every mark of a scope whose subject starts with `prefix` (a destination's spikes). */
export async function marksWithPrefix(db: Kysely<DB>, scope: string, prefix: string) {
  return db
    .selectFrom('notification_marks')
    .select(['subject', 'value', 'updated_at'])
    .where('scope', '=', scope)
    .where('subject', '>=', prefix)
    .where('subject', '<', `${prefix}\uffff`)
    .execute();
}
