import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  ISSUE_ID_DESCRIPTION,
  PROJECT_ID_DESCRIPTION,
  TRIAGE_NOTE,
  TRIAGE_SECURITY,
} from '../../agent-resources/openapi-examples.js';
import type { AppContext } from '../../context.js';
import { registerRoute } from '../../http/route-contract.js';
import { TRIAGE_ERRORS } from '../../issues/triage-contract.js';
import { requireTriage } from '../../keys/require-triage.js';
import { deleteMute } from './mute.service.js';

const MuteParams = z.object({ projectId: z.string(), issueId: z.string(), muteId: z.string() });

/** Unmutes: the issue notifies again at its next event. */
export function registerDeleteMute(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'DELETE',
      url: '/v1/dashboard/:projectId/issues/:issueId/mutes/:muteId',
      params: MuteParams,
      doc: {
        operationId: 'unmuteIssue',
        tags: ['Notifications'],
        summary: 'Delete a mute',
        description: `The issue notifies again at its next event.${TRIAGE_NOTE}`,
        security: TRIAGE_SECURITY,
        parameters: {
          projectId: PROJECT_ID_DESCRIPTION,
          issueId: ISSUE_ID_DESCRIPTION,
          muteId: 'Id of a mute of the issue, from GET …/issues/{issueId}/mutes.',
        },
        responses: { '204': { description: 'Deleted.' } },
        errors: TRIAGE_ERRORS,
      },
    },
    auth: requireTriage,
    handler: async ({ request, reply, ctx, params }) => {
      await deleteMute(ctx, request.accountId, params.projectId, params.issueId, params.muteId);
      return reply.code(204).send();
    },
  });
}
