import { NameBody } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { parseBody } from '../http/body.js';
import { renameProject } from '../projects/project.service.js';
import { requireSession } from '../sessions/require-session.js';

export function registerConsoleRenameProject(app: FastifyInstance, ctx: AppContext): void {
  app.patch<{ Params: { id: string } }>('/v1/console/projects/:id', {
    preHandler: requireSession(ctx),
    handler: async (request) => {
      const { name } = parseBody(NameBody, request.body);
      return renameProject(ctx, request.accountId, request.params.id, name);
    },
  });
}
