import { CreateDestinationBody, Destination } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import {
  ADMIN_NOTE,
  ADMIN_SECURITY,
  EXAMPLE_DESTINATION,
  PROJECT_ID_DESCRIPTION,
} from '../agent-resources/openapi-examples.js';
import type { AppContext } from '../context.js';
import { ProjectParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { requireAdmin } from '../keys/require-admin.js';
import { createDestination } from './destination.service.js';
import { DESTINATION_WRITE_ERRORS } from './destination-contract.js';

/** Adds a destination; a webhook's signing secret is in this answer only. */
export function registerCreateDestination(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'POST',
      url: '/v1/dashboard/:projectId/destinations',
      params: ProjectParams,
      body: CreateDestinationBody,
      doc: {
        operationId: 'createDestination',
        tags: ['Notifications'],
        summary: 'Add a webhook, Slack or email destination',
        description: `\`type\`: \`webhook\` and \`slack\` take \`url\` (a public http(s) address: a private, loopback or link-local one is refused unless the operator set ALLOW_PRIVATE_DESTINATIONS=true), \`email\` takes \`to\`. \`events\`: the notification types it hears; \`filter\` narrows them to reports (and issues' first reports) of one \`outcome\`, \`tool_name\` or \`source\`; \`metadata_keys\`: the report metadata keys its notifications may carry (none unless listed). A webhook's answer carries its \`secret\` (\`whsec_…\`, Standard Webhooks), shown this once: keep it to verify the \`webhook-signature\` header.${ADMIN_NOTE}`,
        security: ADMIN_SECURITY,
        parameters: { projectId: PROJECT_ID_DESCRIPTION },
        requestExamples: {
          webhook: {
            summary: 'A webhook for new and regressed failures',
            value: {
              type: 'webhook',
              url: 'https://hooks.example.com/debrief',
              events: ['issue.created', 'issue.regressed'],
              filter: { outcome: 'failure' },
            },
          },
        },
        responses: {
          '201': {
            description: 'The destination, with its secret (webhooks) shown once.',
            schema: Destination,
            example: { ...EXAMPLE_DESTINATION, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
          },
        },
        errors: DESTINATION_WRITE_ERRORS,
      },
    },
    auth: requireAdmin,
    handler: async ({ request, reply, ctx, params, body }) => {
      const destination = await createDestination(ctx, request.accountId, params.projectId, body);
      return reply.code(201).header('cache-control', 'no-store').send(destination);
    },
  });
}
