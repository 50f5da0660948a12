import { StatsQuery } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { parseQuery } from '../http/query.js';
import { requireSession } from '../sessions/require-session.js';
import { projectTimeseries } from './console.service.js';

export function registerConsoleTimeseries(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: { id: string } }>('/v1/console/projects/:id/timeseries', {
    preHandler: requireSession(ctx),
    handler: async (request) => {
      const query = parseQuery(StatsQuery, request.query);
      return projectTimeseries(request.ctx, request.accountId, request.params.id, query);
    },
  });
}
