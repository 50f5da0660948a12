import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

/** All SQL of forwarding secrets (migration 0031). */

export async function insertForwardingSecret(
  db: Kysely<DB>,
  row: {
    id: string;
    projectId: string;
    name: string;
    prefix: string;
    secretHash: string;
    createdAt: Date;
  },
): Promise<void> {
  await db
    .insertInto('forwarding_secrets')
    .values({
      id: row.id,
      project_id: row.projectId,
      name: row.name,
      prefix: row.prefix,
      secret_hash: row.secretHash,
      created_at: row.createdAt.toISOString(),
      revoked_at: null,
    })
    .execute();
}

/** A project's secrets, newest first, revoked ones included (the dashboard shows when). */
export function listForwardingSecretsOfProject(db: Kysely<DB>, projectId: string) {
  return db
    .selectFrom('forwarding_secrets')
    .select(['id', 'name', 'prefix', 'created_at', 'revoked_at'])
    .where('project_id', '=', projectId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** Revokes one of a project's secrets; false if it has no such active secret. */
export async function revokeForwardingSecret(
  db: Kysely<DB>,
  projectId: string,
  id: string,
  at: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('forwarding_secrets')
    .set({ revoked_at: at.toISOString() })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The project of an active secret, by its hash; undefined if none. */
export async function findProjectOfSecretHash(
  db: Kysely<DB>,
  secretHash: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('forwarding_secrets')
    .select('project_id')
    .where('secret_hash', '=', secretHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row?.project_id;
}
