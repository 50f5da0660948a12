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

/** Whether an ingest key is active (issued and not rotated). */
export async function isActiveIngestKey(db: Kysely<DB>, key: string): Promise<boolean> {
  const row = await db
    .selectFrom('ingest_keys')
    .select('id')
    .where('key', '=', key)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}
