import type { RedactionSettings } from '@debrief/protocol';
import type { AppContext } from '../../context.js';
import { getOwnedProject } from '../../projects/project.service.js';
import { getRedactPersonalData, setRedactPersonalData } from './screening.repository.js';

export async function getRedactionSettings(
  ctx: AppContext,
  accountId: string,
  projectId: string,
): Promise<RedactionSettings> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  return { redact_personal_data: await getRedactPersonalData(ctx.db, project.id) };
}

/** Applies from the next report on: at once on this instance, within 10 s on the others. */
export async function updateRedactionSettings(
  ctx: AppContext,
  accountId: string,
  projectId: string,
  settings: RedactionSettings,
): Promise<RedactionSettings> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  await setRedactPersonalData(ctx.db, project.id, settings.redact_personal_data);
  ctx.reportScreen.forgetProject(project.id);
  return settings;
}
