import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.js';

export async function insertIngestKey(
  db: Kysely<DB>,
  row: { id: string; projectId: string; key: string; createdAt: Date },
): Promise<void> {
  await db
    .insertInto('ingest_keys')
    .values({
      id: row.id,
      project_id: row.projectId,
      key: row.key,
      created_at: row.createdAt.toISOString(),
      revoked_at: null,
    })
    .execute();
}

export async function findActiveIngestKeyOfProject(db: Kysely<DB>, projectId: string) {
  return db
    .selectFrom('ingest_keys')
    .select(['id', 'key', 'created_at'])
    .where('project_id', '=', projectId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
}

export async function revokeIngestKeysOfProject(
  db: Kysely<DB>,
  projectId: string,
  at: Date,
): Promise<void> {
  await db
    .updateTable('ingest_keys')
    .set({ revoked_at: at.toISOString() })
    .where('project_id', '=', projectId)
    .where('revoked_at', 'is', null)
    .execute();
}

/**
 * The project, its account and the limits on stored reports (limits/storage-limits.ts) for an
 * active ingest key.
 * Hot path (every report): a `sql` template, see reports/usage.repository.ts.
 */
export async function findIngestTarget(db: Kysely<DB>, key: string) {
  const { rows } = await sql<{
    project_id: string;
    account_id: string;
    monthly_quota: number | null;
    quota_unlimited: number;
    monthly_cap: number | null;
    address_daily_share: number | null;
  }>`
    select projects.id as project_id, projects.account_id as account_id,
      accounts.monthly_quota as monthly_quota, accounts.quota_unlimited as quota_unlimited,
      projects.monthly_cap as monthly_cap, projects.address_daily_share as address_daily_share
    from ingest_keys
    inner join projects on projects.id = ingest_keys.project_id
    inner join accounts on accounts.id = projects.account_id
    where ingest_keys.key = ${key} and ingest_keys.revoked_at is null
  `.execute(db);
  return rows[0];
}
