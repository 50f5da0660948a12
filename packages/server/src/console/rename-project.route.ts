import { NameBody } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { IdParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { renameProject } from '../projects/project.service.js';
import { requireSession } from '../sessions/require-session.js';

export function registerConsoleRenameProject(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'PATCH',
      url: '/v1/console/projects/:id',
      params: IdParams,
      body: NameBody,
    },
    auth: requireSession,
    handler: async ({ request, ctx, params, body }) => {
      const { name } = body;
      return renameProject(ctx, request.accountId, params.id, name);
    },
  });
}
