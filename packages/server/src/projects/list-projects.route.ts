import { ProjectList } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import { READ_AUTH_ERROR_CODES } from '../agent-resources/error-guide.js';
import { EXAMPLE_PROJECT_ID, READ_SECURITY } from '../agent-resources/openapi-examples.js';
import type { AppContext } from '../context.js';
import { registerRoute } from '../http/route-contract.js';
import { requireReader } from '../keys/require-reader.js';
import { listProjects } from './project.service.js';

export function registerListProjects(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/projects',
      doc: {
        operationId: 'listProjects',
        tags: ['Read'],
        summary: 'List your projects',
        description: 'Every project of the account of the API key, oldest first, as a bare array.',
        security: READ_SECURITY,
        responses: {
          '200': {
            description: 'Your projects.',
            schema: ProjectList,
            example: [
              { id: EXAMPLE_PROJECT_ID, name: 'My MCP server', created_at: '2026-11-01T09:00:00Z' },
            ],
          },
        },
        errors: [...READ_AUTH_ERROR_CODES, 'internal_error', 'service_unavailable'],
      },
    },
    auth: requireReader,
    handler: ({ request, ctx }) => listProjects(ctx.db, request.accountId),
  });
}
