import type { Project } from '@debrief/protocol';
import type { Kysely } from 'kysely';
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

/** The project if it belongs to the account; otherwise 404, never revealing that it exists. */
export async function getOwnedProject(db: Kysely<DB>, accountId: string, projectId: string) {
  const project = /^[0-9a-f]{32}$/.test(projectId)
    ? await findProjectOfAccount(db, accountId, projectId)
    : undefined;
  if (!project) {
    throw new ApiError(
      'project_not_found',
      `No project with id ${JSON.stringify(projectId.slice(0, 64))} in your account. GET /v1/projects lists your projects and their ids.`,
    );
  }
  return project;
}

export async function renameProject(
  db: Kysely<DB>,
  accountId: string,
  projectId: string,
  name: string,
) {
  const project = await getOwnedProject(db, accountId, projectId);
  await updateProjectName(db, project.id, name);
  return toWireProject({ ...project, name });
}
