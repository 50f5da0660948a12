import type { RedactionSettings } from '@debrief/protocol';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { getOwnedProject, type OwnedProjects } from '../../projects/project.service.js';
import type { ReportScreen } from './report-screen.js';
import { getRedactPersonalData, setRedactPersonalData } from './screening.repository.js';

export async function getRedactionSettings(
  ctx: { db: Kysely<DB>; ownedProjects: OwnedProjects },
  accountId: string,
  projectId: string,
): Promise<RedactionSettings> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  return { redact_personal_data: await getRedactPersonalData(ctx.db, project.id) };
}

/** Applies from the next report on: at once on this instance, within 10 s on the others. */
export async function updateRedactionSettings(
  ctx: { db: Kysely<DB>; ownedProjects: OwnedProjects; reportScreen: ReportScreen },
  accountId: string,
  projectId: string,
  settings: RedactionSettings,
): Promise<RedactionSettings> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  await setRedactPersonalData(ctx.db, project.id, settings.redact_personal_data);
  ctx.reportScreen.forgetProject(project.id);
  return settings;
}
