import { DestinationList } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import {
  ADMIN_NOTE,
  ADMIN_SECURITY,
  PROJECT_ID_DESCRIPTION,
} from '../agent-resources/openapi-examples.js';
import type { AppContext } from '../context.js';
import { ProjectParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { NoQuery } from '../issues/no-query.js';
import { requireAdmin } from '../keys/require-admin.js';
import { listDestinations } from './destination.service.js';
import { DESTINATION_ERRORS } from './destination-contract.js';

/** A project's notification destinations. */
export function registerListDestinations(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/dashboard/:projectId/destinations',
      params: ProjectParams,
      query: NoQuery,
      doc: {
        operationId: 'listDestinations',
        tags: ['Notifications'],
        summary: "A project's notification destinations",
        description: `Every webhook, Slack and email destination of the project, oldest first, with its status (\`active\`, \`paused\` by its owner, \`failing\`: paused after a day of failed deliveries, \`gone\`: its receiver answered 410) and its last delivery. Secrets are never listed.${ADMIN_NOTE}`,
        security: ADMIN_SECURITY,
        parameters: { projectId: PROJECT_ID_DESCRIPTION },
        responses: { '200': { description: 'The destinations.', schema: DestinationList } },
        errors: ['invalid_query', ...DESTINATION_ERRORS],
      },
    },
    auth: requireAdmin,
    handler: ({ request, ctx, params }) =>
      listDestinations(ctx, request.accountId, params.projectId),
  });
}
