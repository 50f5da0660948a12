import type { Kysely } from 'kysely';
import { compiledShapes } from '../db/compiled-shapes.js';
import type { DB } from '../db/schema.js';

export async function insertProject(
  db: Kysely<DB>,
  project: { id: string; accountId: string; name: string; createdAt: Date },
): Promise<void> {
  await db
    .insertInto('projects')
    .values({
      id: project.id,
      account_id: project.accountId,
      name: project.name,
      created_at: project.createdAt.toISOString(),
    })
    .execute();
}

export async function listProjectsOfAccount(db: Kysely<DB>, accountId: string) {
  return db
    .selectFrom('projects')
    .select(['id', 'name', 'created_at'])
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
}

export async function findProjectOfAccount(db: Kysely<DB>, accountId: string, projectId: string) {
  const { rows } = await db.executeQuery(projectOfAccount(db, {}, { accountId, projectId }));
  return rows[0];
}

/** Asked by every read of a project's reports: compiled once (compiled-shapes.ts). */
const projectOfAccount = compiledShapes(
  (db: Kysely<DB>, _shape: object, p: { accountId: string; projectId: string }) =>
    db
      .selectFrom('projects')
      .select(['id', 'name', 'created_at', 'account_id'])
      .where('id', '=', p.projectId)
      .where('account_id', '=', p.accountId),
);

export async function updateProjectName(
  db: Kysely<DB>,
  projectId: string,
  name: string,
): Promise<void> {
  await db.updateTable('projects').set({ name }).where('id', '=', projectId).execute();
}
