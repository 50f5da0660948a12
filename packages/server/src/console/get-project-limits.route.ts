import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { getProjectLimits } from '../limits/limits.service.js';
import { requireSession } from '../sessions/require-session.js';

/** The project's ingest limits: its own settings, the instance's defaults, what applies now. */
export function registerConsoleGetProjectLimits(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: { id: string } }>('/v1/console/projects/:id/limits', {
    preHandler: requireSession(ctx),
    handler: async (request) => getProjectLimits(ctx, request.accountId, request.params.id),
  });
}
