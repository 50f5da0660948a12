import { Destination, UpdateDestinationBody } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import {
  ADMIN_NOTE,
  ADMIN_SECURITY,
  PROJECT_ID_DESCRIPTION,
} from '../agent-resources/openapi-examples.js';
import type { AppContext } from '../context.js';
import { registerRoute } from '../http/route-contract.js';
import { requireAdmin } from '../keys/require-admin.js';
import { updateDestination } from './destination.service.js';
import {
  DESTINATION_ID_DESCRIPTION,
  DESTINATION_WRITE_ERRORS,
  ProjectDestinationParams,
} from './destination-contract.js';

/** Edits, pauses or resumes a destination, or rotates a webhook's secret. */
export function registerUpdateDestination(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'PATCH',
      url: '/v1/dashboard/:projectId/destinations/:destinationId',
      params: ProjectDestinationParams,
      body: UpdateDestinationBody,
      doc: {
        operationId: 'updateDestination',
        tags: ['Notifications'],
        summary: 'Edit, pause, resume a destination, or rotate its secret',
        description: `Any field of the create body but \`type\`; \`paused\`: true pauses it, false resumes it (also a destination paused as \`failing\` or \`gone\`), and its waiting notifications go out. \`rotate_secret: true\` (webhooks): a new secret, in this answer only; the old one keeps signing beside it for 24 h (the \`webhook-signature\` header then carries two signatures), so a receiver can switch without losing a message.${ADMIN_NOTE}`,
        security: ADMIN_SECURITY,
        parameters: {
          projectId: PROJECT_ID_DESCRIPTION,
          destinationId: DESTINATION_ID_DESCRIPTION,
        },
        requestExamples: {
          pause: { summary: 'Pause', value: { paused: true } },
          rotate: { summary: 'Rotate the signing secret', value: { rotate_secret: true } },
        },
        responses: {
          '200': {
            description: 'The destination after the change; `secret` after a rotation only.',
            schema: Destination,
          },
        },
        errors: [...DESTINATION_WRITE_ERRORS, 'not_found'],
      },
    },
    auth: requireAdmin,
    handler: async ({ request, reply, ctx, params, body }) => {
      const destination = await updateDestination(
        ctx,
        request.accountId,
        params.projectId,
        params.destinationId,
        body,
      );
      return reply.header('cache-control', 'no-store').send(destination);
    },
  });
}
