import type { Kysely } from 'kysely';
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

/** The project, its account and the account's quota settings for an active ingest key. */
export async function findIngestTarget(db: Kysely<DB>, key: string) {
  return db
    .selectFrom('ingest_keys')
    .innerJoin('projects', 'projects.id', 'ingest_keys.project_id')
    .innerJoin('accounts', 'accounts.id', 'projects.account_id')
    .select([
      'projects.id as project_id',
      'projects.account_id as account_id',
      'accounts.monthly_quota as monthly_quota',
      'accounts.quota_unlimited as quota_unlimited',
    ])
    .where('ingest_keys.key', '=', key)
    .where('ingest_keys.revoked_at', 'is', null)
    .executeTakeFirst();
}
