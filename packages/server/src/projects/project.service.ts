import type { Project } from '@debrief/protocol';
import type { Kysely } from 'kysely';
import { LookupCache } from '../db/lookup-cache.js';
import type { DB } from '../db/schema.js';
import { toWireTimestamp } from '../db/wire-timestamp.js';
import { ApiError } from '../errors/api-error.js';
import { newId } from '../ids.js';
import { issueIngestKey } from '../keys/key.service.js';
import {
  findProjectOfAccount,
  insertProject,
  listProjectsOfAccount,
  updateProjectName,
} from './project.repository.js';

export function toWireProject(row: {
  id: string;
  name: string;
  created_at: Date | string;
}): Project {
  return { id: row.id, name: row.name, created_at: toWireTimestamp(row.created_at) };
}

/** A project and its first ingest key, in one transaction. */
export async function createProject(db: Kysely<DB>, accountId: string, name: string) {
  return db.transaction().execute(async (trx) => {
    const project = { id: newId(), accountId, name, createdAt: new Date() };
    await insertProject(trx, project);
    const ingestKey = await issueIngestKey(trx, project.id);
    return {
      project: toWireProject({ id: project.id, name, created_at: project.createdAt }),
      ingestKey,
    };
  });
}

export async function listProjects(db: Kysely<DB>, accountId: string): Promise<Project[]> {
  return (await listProjectsOfAccount(db, accountId)).map(toWireProject);
}

export type OwnedProject = NonNullable<Awaited<ReturnType<typeof findProjectOfAccount>>>;
export type OwnedProjects = LookupCache<OwnedProject | null>;

/**
 * Which project belongs to which account, as every read of a project asks it (one statement,
 * a round trip on PostgreSQL, per request otherwise): kept LOOKUP_CACHE_MS per account
 * and project id. A project never changes account; its name may, and a rename on this instance
 * forgets it at once (renameProject), on another within that time.
 */
export function ownedProjectCache(db: Kysely<DB>): OwnedProjects {
  return new LookupCache(async (key) => {
    const [accountId = '', projectId = ''] = key.split('/');
    return (await findProjectOfAccount(db, accountId, projectId)) ?? null;
  });
}

/** The project if it belongs to the account; otherwise 404, never revealing that it exists. */
export async function getOwnedProject(
  ctx: { ownedProjects: OwnedProjects },
  accountId: string,
  projectId: string,
): Promise<OwnedProject> {
  const project = /^[0-9a-f]{32}$/.test(projectId)
    ? await ctx.ownedProjects.get(`${accountId}/${projectId}`)
    : null;
  if (!project) {
    throw new ApiError(
      'project_not_found',
      `No project with id ${JSON.stringify(projectId.slice(0, 64))} in your account. GET /v1/projects lists your projects and their ids.`,
    );
  }
  return project;
}

export async function renameProject(
  ctx: { db: Kysely<DB>; ownedProjects: OwnedProjects },
  accountId: string,
  projectId: string,
  name: string,
) {
  const project = await getOwnedProject(ctx, accountId, projectId);
  await updateProjectName(ctx.db, project.id, name);
  ctx.ownedProjects.forget((cached) => cached?.id === project.id);
  return toWireProject({ ...project, name });
}
