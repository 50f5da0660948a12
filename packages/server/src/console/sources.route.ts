import { StatsQuery } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { parseQuery } from '../http/query.js';
import { requireSession } from '../sessions/require-session.js';
import { projectSourceStats } from './console.service.js';

/** The source filter's choices: the project's busiest sources under from/to/tool_name. */
export function registerConsoleSourceStats(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: { id: string } }>('/v1/console/projects/:id/sources', {
    preHandler: requireSession(ctx),
    handler: async (request) => {
      const query = parseQuery(StatsQuery, request.query);
      return projectSourceStats(request.ctx, request.accountId, request.params.id, query);
    },
  });
}
