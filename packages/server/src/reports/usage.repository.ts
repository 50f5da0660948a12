import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.js';

/*
 * Hot path of POST /v1/reports: written as Kysely `sql` templates rather than with the query
 * builder. Building and compiling a query object tree cost ~75 µs of CPU per report for these
 * queries — over a third of the server's CPU per request (BENCHMARKS.md); a template compiles to
 * the same SQL (placeholders per dialect) almost for free. Plain SQL valid on SQLite and
 * PostgreSQL alike.
 */

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
  const { rows } = await sql<{ count: number }>`
    insert into usage_counters (account_id, month, count) values (${accountId}, ${month}, 1)
    on conflict (account_id, month) do update set count = usage_counters.count + 1
    ${limit === null ? sql`` : sql`where usage_counters.count < ${limit}`}
    returning count
  `.execute(db);
  return rows.length > 0;
}

/**
 * As incrementUsageWithinQuota, for a capped project's month (limits/storage-limits.ts).
 */
export async function incrementProjectUsageWithinCap(
  db: Kysely<DB>,
  projectId: string,
  month: string,
  cap: number,
): Promise<boolean> {
  if (cap <= 0) return false;
  const { rows } = await sql<{ count: number }>`
    insert into project_usage (project_id, month, count) values (${projectId}, ${month}, 1)
    on conflict (project_id, month) do update set count = project_usage.count + 1
    where project_usage.count < ${cap}
    returning count
  `.execute(db);
  return rows.length > 0;
}

/** As incrementUsageWithinQuota, for an account's reports from one address in one UTC day. */
export async function incrementAddressUsageWithinLimit(
  db: Kysely<DB>,
  accountId: string,
  address: string,
  day: string,
  limit: number,
): Promise<boolean> {
  const { rows } = await sql<{ count: number }>`
    insert into address_usage (account_id, address, day, count)
    values (${accountId}, ${address}, ${day}, 1)
    on conflict (account_id, address, day) do update set count = address_usage.count + 1
    where address_usage.count < ${limit}
    returning count
  `.execute(db);
  return rows.length > 0;
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
