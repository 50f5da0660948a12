import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.js';

/** The policy of one failure counter (accounts/failure-counter.ts). */
export interface FailurePolicy {
  /** Failures allowed within the window before the key is locked for a while. */
  freeFailures: number;
  windowMs: number;
  /** The first lockout; each further failure doubles it, up to the window. */
  baseDelayMs: number;
}

/**
 * Counts one failure of `key`, unless the key is locked: one statement, so that concurrent
 * tries on several instances are counted exactly and a locked key is refused everywhere.
 * Returns true when the failure was counted (the try may go ahead), false when the key is
 * locked (nothing changed).
 *
 * A quiet window (`expires_at` passed) starts the count afresh. Once the count reaches the free
 * failures, the key is locked for `baseDelayMs`, and each further failure doubles the lockout up
 * to the window: the same policy as the in-memory counter this replaces.
 */
export async function countFailure(
  db: Kysely<DB>,
  scope: string,
  key: string,
  policy: FailurePolicy,
  now: number,
): Promise<boolean> {
  const { freeFailures: free, windowMs: window, baseDelayMs: base } = policy;
  const at = sql`cast(${now} as bigint)`;
  const expired = sql`auth_failures.expires_at < ${at}`;
  const failures = sql<number>`case when ${expired} then 1 else auth_failures.failures + 1 end`;
  const doubled = sql`case when auth_failures.delay_ms * 2 > ${window} then ${window} else auth_failures.delay_ms * 2 end`;
  const delay = sql<number>`case when ${failures} < ${free} then 0 when ${failures} = ${free} then ${base} else ${doubled} end`;
  const first = 1 >= free ? base : 0;
  const row = await db
    .insertInto('auth_failures')
    .values({
      scope,
      key,
      failures: 1,
      delay_ms: first,
      locked_until: first ? now + first : 0,
      expires_at: now + window,
    })
    .onConflict((oc) =>
      oc
        .columns(['scope', 'key'])
        .doUpdateSet({
          failures,
          delay_ms: delay,
          locked_until: sql<number>`case when ${failures} < ${free} then 0 else ${at} + ${delay} end`,
          expires_at: now + window,
        })
        .where(sql<boolean>`auth_failures.locked_until <= ${at} or ${expired}`),
    )
    .returning('failures')
    .executeTakeFirst();
  return row !== undefined;
}

/** When the key's lockout ends (epoch ms), or 0 when it is not locked or unknown. */
export async function lockedUntil(db: Kysely<DB>, scope: string, key: string): Promise<number> {
  const row = await db
    .selectFrom('auth_failures')
    .select('locked_until')
    .where('scope', '=', scope)
    .where('key', '=', key)
    .executeTakeFirst();
  return row ? Number(row.locked_until) : 0;
}

export async function clearFailures(db: Kysely<DB>, scope: string, key: string): Promise<void> {
  await db.deleteFrom('auth_failures').where('scope', '=', scope).where('key', '=', key).execute();
}

/** Forgets every counter whose window has passed; returns how many rows went. */
export async function pruneFailures(db: Kysely<DB>, now: number): Promise<number> {
  const result = await db
    .deleteFrom('auth_failures')
    .where('expires_at', '<', now)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
