import { Delivery, NotificationType } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  ADMIN_NOTE,
  ADMIN_SECURITY,
  PROJECT_ID_DESCRIPTION,
} from '../agent-resources/openapi-examples.js';
import type { AppContext } from '../context.js';
import { registerRoute } from '../http/route-contract.js';
import { requireAdmin } from '../keys/require-admin.js';
import { sendTestMessage } from './destination.service.js';
import {
  DESTINATION_ID_DESCRIPTION,
  DESTINATION_WRITE_ERRORS,
  ProjectDestinationParams,
} from './destination-contract.js';

/** Body of `POST …/destinations/{id}/test`: the event type to imitate (optional). */
export const TestDestinationBody = z.object({ type: NotificationType.optional() }).strict();

/** Sends one test notification now and answers how it went. */
export function registerTestDestination(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'POST',
      url: '/v1/dashboard/:projectId/destinations/:destinationId/test',
      params: ProjectDestinationParams,
      body: TestDestinationBody,
      doc: {
        operationId: 'testDestination',
        tags: ['Notifications'],
        summary: 'Send a test notification',
        description: `Sends one notification of \`type\` (default: the destination's first event) about the project's most recently seen issue, with \`data.test: true\`, at once and without retries, even to a paused destination; answers the attempt as the delivery log records it (\`status\` \`succeeded\` or \`failed\`, the receiver's \`response_status\`, the \`error\`). The body may be empty.${ADMIN_NOTE}`,
        security: ADMIN_SECURITY,
        parameters: {
          projectId: PROJECT_ID_DESCRIPTION,
          destinationId: DESTINATION_ID_DESCRIPTION,
        },
        responses: { '200': { description: 'How the attempt went.', schema: Delivery } },
        errors: [...DESTINATION_WRITE_ERRORS, 'not_found'],
      },
    },
    auth: requireAdmin,
    handler: ({ request, ctx, params, body }) =>
      sendTestMessage(ctx, request.accountId, params.projectId, params.destinationId, body.type),
  });
}
