import { CreateMuteBody, Mute } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import {
  ISSUE_ID_DESCRIPTION,
  PROJECT_ID_DESCRIPTION,
  TRIAGE_NOTE,
  TRIAGE_SECURITY,
} from '../../agent-resources/openapi-examples.js';
import type { AppContext } from '../../context.js';
import { ProjectIssueParams } from '../../http/path-params.js';
import { registerRoute } from '../../http/route-contract.js';
import { TRIAGE_ERRORS } from '../../issues/triage-contract.js';
import { requireTriage } from '../../keys/require-triage.js';
import { createMute } from './mute.service.js';

/** Mutes an issue's notifications: a triage decision about the issue, so the `triage` scope. */
export function registerCreateMute(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'POST',
      url: '/v1/dashboard/:projectId/issues/:issueId/mutes',
      params: ProjectIssueParams,
      body: CreateMuteBody,
      doc: {
        operationId: 'muteIssue',
        tags: ['Notifications'],
        summary: "Mute an issue's notifications",
        description: `A muted issue sends no notification (\`issue.regressed\`, \`issue.spiking\`, …) to the destination \`destination_id\`, or to every destination of the project when it is absent. \`hours\`: for that long ("for 24 h"). \`reports\`: until the issue has had that many more reports ("until it happens 10 more times"). Both: whichever comes first. Neither: until the mute is deleted.${TRIAGE_NOTE}`,
        security: TRIAGE_SECURITY,
        parameters: { projectId: PROJECT_ID_DESCRIPTION, issueId: ISSUE_ID_DESCRIPTION },
        requestExamples: {
          day: { summary: 'Mute for 24 h, everywhere', value: { hours: 24 } },
          count: {
            summary: 'Mute for one destination until 10 more reports',
            value: { destination_id: '0198c4a2e3f47a9b8c1d2e3f4a5b6c7d', reports: 10 },
          },
        },
        responses: { '201': { description: 'The mute.', schema: Mute } },
        errors: TRIAGE_ERRORS,
      },
    },
    auth: requireTriage,
    handler: async ({ request, reply, ctx, params, body }) =>
      reply
        .code(201)
        .send(await createMute(ctx, request.accountId, params.projectId, params.issueId, body)),
  });
}
