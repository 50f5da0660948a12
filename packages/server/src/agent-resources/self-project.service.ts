import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { newId } from '../ids.js';
import { getIngestKey, issueIngestKey } from '../keys/key.service.js';
import { insertProject } from '../projects/project.repository.js';
import {
  findFirstAccount,
  findSetting,
  insertSettingIfAbsent,
} from './instance-settings.repository.js';

export const SELF_PROJECT_SETTING = 'self_project_id';
export const SELF_PROJECT_NAME = 'Debrief (this instance)';
/** The `source` of every report an agent sends about Debrief itself. */
export const SELF_SOURCE = 'debrief';

/** Thrown inside the transaction to roll back a project that lost the race to another caller. */
class LostRace extends Error {}

/**
 * The project that holds reports about this instance, owned by the operator (the first account
 * created). Created on first need: at start when an account exists, or when /skill.md is served.
 * Idempotent and race-safe: the project, its key and the `self_project_id` setting are written
 * in one transaction, and the setting's primary key lets only one concurrent caller commit;
 * the others roll back their project and read the winner's. Null while no account exists.
 */
export async function ensureSelfProject(db: Kysely<DB>): Promise<string | null> {
  const existing = await findSetting(db, SELF_PROJECT_SETTING);
  if (existing) return existing;
  const operator = await findFirstAccount(db);
  if (!operator) return null;
  try {
    return await db.transaction().execute(async (trx) => {
      const projectId = newId();
      await insertProject(trx, {
        id: projectId,
        accountId: operator.id,
        name: SELF_PROJECT_NAME,
        createdAt: new Date(),
      });
      await issueIngestKey(trx, projectId);
      if (!(await insertSettingIfAbsent(trx, SELF_PROJECT_SETTING, projectId)))
        throw new LostRace();
      return projectId;
    });
  } catch (error) {
    if (!(error instanceof LostRace)) {
      // A concurrent writer may also surface as a unique violation or a serialization failure:
      // whatever happened, a committed setting is the answer; without one, the error stands.
      const winner = await findSetting(db, SELF_PROJECT_SETTING);
      if (winner) return winner;
      throw error;
    }
    return findSetting(db, SELF_PROJECT_SETTING);
  }
}

export interface SelfFeedbackTarget {
  projectId: string;
  /** The project's current ingest key: rotating it in the dashboard changes /skill.md at once. */
  ingestKey: string;
}

/** Where agents send feedback about Debrief itself, or null when no account exists yet. */
export async function getSelfFeedbackTarget(db: Kysely<DB>): Promise<SelfFeedbackTarget | null> {
  const projectId = await ensureSelfProject(db);
  if (!projectId) return null;
  const ingestKey = await getIngestKey(db, projectId);
  return ingestKey ? { projectId, ingestKey } : null;
}
