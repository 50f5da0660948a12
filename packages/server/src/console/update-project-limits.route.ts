import { ProjectLimitSettings } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { parseBody } from '../http/body.js';
import { setProjectLimits } from '../limits/limits.service.js';
import { requireSession } from '../sessions/require-session.js';

/** Replaces the project's limit settings (a field left out or null = the instance's default). */
export function registerConsoleUpdateProjectLimits(app: FastifyInstance, ctx: AppContext): void {
  app.put<{ Params: { id: string } }>('/v1/console/projects/:id/limits', {
    preHandler: requireSession(ctx),
    handler: async (request) => {
      const settings = parseBody(ProjectLimitSettings, request.body);
      return setProjectLimits(ctx, request.accountId, request.params.id, settings);
    },
  });
}
