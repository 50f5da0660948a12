import type { FastifyInstance } from 'fastify';
import {
  ADMIN_NOTE,
  ADMIN_SECURITY,
  PROJECT_ID_DESCRIPTION,
} from '../agent-resources/openapi-examples.js';
import type { AppContext } from '../context.js';
import { registerRoute } from '../http/route-contract.js';
import { requireAdmin } from '../keys/require-admin.js';
import { deleteDestination } from './destination.service.js';
import {
  DESTINATION_ERRORS,
  DESTINATION_ID_DESCRIPTION,
  ProjectDestinationParams,
} from './destination-contract.js';

/** Removes a destination, its waiting notifications and its delivery log. */
export function registerDeleteDestination(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'DELETE',
      url: '/v1/dashboard/:projectId/destinations/:destinationId',
      params: ProjectDestinationParams,
      doc: {
        operationId: 'deleteDestination',
        tags: ['Notifications'],
        summary: 'Delete a destination',
        description: `The destination, its waiting notifications and its delivery log go; nothing more is sent to it.${ADMIN_NOTE}`,
        security: ADMIN_SECURITY,
        parameters: {
          projectId: PROJECT_ID_DESCRIPTION,
          destinationId: DESTINATION_ID_DESCRIPTION,
        },
        responses: { '204': { description: 'Deleted.' } },
        errors: [...DESTINATION_ERRORS, 'not_found'],
      },
    },
    auth: requireAdmin,
    handler: async ({ request, reply, ctx, params }) => {
      await deleteDestination(ctx, request.accountId, params.projectId, params.destinationId);
      return reply.code(204).send();
    },
  });
}
