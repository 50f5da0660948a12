import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';

export async function getUsage(db: Kysely<DB>, accountId: string, month: string): Promise<number> {
  const row = await db
    .selectFrom('usage_counters')
    .select('count')
    .where('account_id', '=', accountId)
    .where('month', '=', month)
    .executeTakeFirst();
  return row ? Number(row.count) : 0;
}
