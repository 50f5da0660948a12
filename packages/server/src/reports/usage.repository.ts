import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';

/**
 * Counts one more stored report for the account's month, unless that would pass `limit`
 * (null = unlimited). A single upsert: the row lock (PostgreSQL) or the single writer (SQLite)
 * makes check-and-increment atomic, so concurrent submits can never exceed the quota.
 * Returns false, changing nothing, when the quota is used up.
 */
export async function incrementUsageWithinQuota(
  db: Kysely<DB>,
  accountId: string,
  month: string,
  limit: number | null,
): Promise<boolean> {
  if (limit !== null && limit <= 0) return false;
  const row = await db
    .insertInto('usage_counters')
    .values({ account_id: accountId, month, count: 1 })
    .onConflict((oc) => {
      const update = oc
        .columns(['account_id', 'month'])
        .doUpdateSet((eb) => ({ count: eb('usage_counters.count', '+', 1) }));
      return limit === null ? update : update.where('usage_counters.count', '<', limit);
    })
    .returning('count')
    .executeTakeFirst();
  return row !== undefined;
}

export async function getUsage(db: Kysely<DB>, accountId: string, month: string): Promise<number> {
  const row = await db
    .selectFrom('usage_counters')
    .select('count')
    .where('account_id', '=', accountId)
    .where('month', '=', month)
    .executeTakeFirst();
  return row ? Number(row.count) : 0;
}
