import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.js';

/** A project's own limits (null = the instance's default; `monthly_cap` null = no cap). */
export interface ProjectLimitColumns {
  key_rate: number | null;
  key_burst: number | null;
  address_rate: number | null;
  address_burst: number | null;
  address_daily_share: number | null;
  monthly_cap: number | null;
}

export async function findProjectLimits(
  db: Kysely<DB>,
  projectId: string,
): Promise<ProjectLimitColumns | undefined> {
  return db
    .selectFrom('projects')
    .select([
      'key_rate',
      'key_burst',
      'address_rate',
      'address_burst',
      'address_daily_share',
      'monthly_cap',
    ])
    .where('id', '=', projectId)
    .executeTakeFirst();
}

export async function updateProjectLimits(
  db: Kysely<DB>,
  projectId: string,
  limits: ProjectLimitColumns,
): Promise<void> {
  await db.updateTable('projects').set(limits).where('id', '=', projectId).execute();
}

/** The project's reports stored from `from` on (its month, when a cap is set). */
export async function countProjectReportsSince(
  db: Kysely<DB>,
  projectId: string,
  from: Date,
): Promise<number> {
  const row = await db
    .selectFrom('reports')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('project_id', '=', projectId)
    .where('created_at', '>=', from.toISOString())
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Sets a project's monthly counter (when a cap is set: from then on the writers keep it). */
export async function setProjectUsage(
  db: Kysely<DB>,
  projectId: string,
  month: string,
  count: number,
): Promise<void> {
  await db
    .insertInto('project_usage')
    .values({ project_id: projectId, month, count })
    .onConflict((oc) => oc.columns(['project_id', 'month']).doUpdateSet({ count }))
    .execute();
}

export interface ThrottledRow {
  projectId: string;
  day: string;
  address: string;
  reason: string;
  count: number;
}

/** Adds refused submissions to their rows, in one transaction. */
export async function addThrottled(db: Kysely<DB>, rows: ThrottledRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (const row of rows) {
      await sql`
        insert into throttled_requests (project_id, day, address, reason, count)
        values (${row.projectId}, ${row.day}, ${row.address}, ${row.reason}, ${row.count})
        on conflict (project_id, day, address, reason)
        do update set count = throttled_requests.count + excluded.count
      `.execute(trx);
    }
  });
}

/** Refused submissions of a project since a UTC day, per reason. */
export async function countThrottledByReason(db: Kysely<DB>, projectId: string, sinceDay: string) {
  const rows = await db
    .selectFrom('throttled_requests')
    .select((eb) => ['reason', eb.fn.sum<number | string>('count').as('n')])
    .where('project_id', '=', projectId)
    .where('day', '>=', sinceDay)
    .groupBy('reason')
    .execute();
  return rows.map((row) => ({ reason: row.reason, n: Number(row.n) }));
}

/** The addresses refused most often since a UTC day, most first. */
export async function topThrottledAddresses(
  db: Kysely<DB>,
  projectId: string,
  sinceDay: string,
  limit: number,
) {
  const rows = await db
    .selectFrom('throttled_requests')
    .select((eb) => [
      'address',
      eb.fn.sum<number | string>('count').as('n'),
      eb.fn.max('day').as('last_day'),
    ])
    .where('project_id', '=', projectId)
    .where('day', '>=', sinceDay)
    .groupBy('address')
    .orderBy('n', 'desc')
    .orderBy('address', 'asc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    address: row.address,
    count: Number(row.n),
    last_day: String(row.last_day),
  }));
}

/** Forgets the per-address day counters before a UTC day (only today's are read). */
export async function pruneAddressUsage(db: Kysely<DB>, beforeDay: string): Promise<void> {
  await db.deleteFrom('address_usage').where('day', '<', beforeDay).execute();
}
