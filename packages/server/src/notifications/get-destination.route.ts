import { Destination } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import {
  ADMIN_NOTE,
  ADMIN_SECURITY,
  PROJECT_ID_DESCRIPTION,
} from '../agent-resources/openapi-examples.js';
import type { AppContext } from '../context.js';
import { registerRoute } from '../http/route-contract.js';
import { NoQuery } from '../issues/no-query.js';
import { requireAdmin } from '../keys/require-admin.js';
import { showDestination } from './destination.service.js';
import {
  DESTINATION_ERRORS,
  DESTINATION_ID_DESCRIPTION,
  ProjectDestinationParams,
} from './destination-contract.js';

/** One destination. */
export function registerGetDestination(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/dashboard/:projectId/destinations/:destinationId',
      params: ProjectDestinationParams,
      query: NoQuery,
      doc: {
        operationId: 'getDestination',
        tags: ['Notifications'],
        summary: 'One destination',
        description: `The destination as the list shows it (never its secret).${ADMIN_NOTE}`,
        security: ADMIN_SECURITY,
        parameters: {
          projectId: PROJECT_ID_DESCRIPTION,
          destinationId: DESTINATION_ID_DESCRIPTION,
        },
        responses: { '200': { description: 'The destination.', schema: Destination } },
        errors: ['invalid_query', ...DESTINATION_ERRORS, 'not_found'],
      },
    },
    auth: requireAdmin,
    handler: ({ request, ctx, params }) =>
      showDestination(ctx, request.accountId, params.projectId, params.destinationId),
  });
}
