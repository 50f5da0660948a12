import { type Kysely, type SqlBool, sql } from 'kysely';
import type { DB } from '../db/schema.js';
import { ACTIVE_INGEST_KEY } from './ingest-key-lookup.js';

/** ACTIVE_INGEST_KEY as a Kysely condition, for queries over `ingest_keys` (unaliased). */
const isActive = sql<SqlBool>`${sql.raw(ACTIVE_INGEST_KEY)}`;

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
    .where(isActive)
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
    .where(isActive)
    .execute();
}

/** Whether an ingest key is active (issued and not rotated). */
export async function isActiveIngestKey(db: Kysely<DB>, key: string): Promise<boolean> {
  const row = await db
    .selectFrom('ingest_keys')
    .select('id')
    .where('key', '=', key)
    .where(isActive)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * What the submit path needs of an active ingest key before the writer (keys/ingest-key-cache.ts):
 * its project, the project's bucket settings and its redaction setting.
 */
export async function findIngestKeyProfile(db: Kysely<DB>, key: string) {
  return db
    .selectFrom('ingest_keys')
    .innerJoin('projects', 'projects.id', 'ingest_keys.project_id')
    .select([
      'projects.id as project_id',
      'projects.key_rate',
      'projects.key_burst',
      'projects.address_rate',
      'projects.address_burst',
      'projects.redact_personal_data',
    ])
    .where('ingest_keys.key', '=', key)
    .where(isActive)
    .executeTakeFirst();
}

export type IngestKeyProfile = NonNullable<Awaited<ReturnType<typeof findIngestKeyProfile>>>;
