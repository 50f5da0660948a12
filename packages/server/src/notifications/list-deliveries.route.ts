import { DeliveryList } from '@debrief/protocol';
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
import { listDestinationDeliveries } from './destination.service.js';
import {
  DESTINATION_ERRORS,
  DESTINATION_ID_DESCRIPTION,
  ProjectDestinationParams,
} from './destination-contract.js';

/** A destination's delivery log. */
export function registerListDeliveries(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/dashboard/:projectId/destinations/:destinationId/deliveries',
      params: ProjectDestinationParams,
      query: NoQuery,
      doc: {
        operationId: 'listDeliveries',
        tags: ['Notifications'],
        summary: "A destination's delivery log",
        description: `The last 100 attempts, newest first, after the notifications still waiting for their first: each with its \`message_id\` (the \`webhook-id\`, the same on every attempt of one notification), the attempt's number, the receiver's status code or the error, and when the next attempt is due.${ADMIN_NOTE}`,
        security: ADMIN_SECURITY,
        parameters: {
          projectId: PROJECT_ID_DESCRIPTION,
          destinationId: DESTINATION_ID_DESCRIPTION,
        },
        responses: { '200': { description: 'The delivery log.', schema: DeliveryList } },
        errors: ['invalid_query', ...DESTINATION_ERRORS, 'not_found'],
      },
    },
    auth: requireAdmin,
    handler: ({ request, ctx, params }) =>
      listDestinationDeliveries(ctx, request.accountId, params.projectId, params.destinationId),
  });
}
