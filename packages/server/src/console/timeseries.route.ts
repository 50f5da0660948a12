import { StatsQuery } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { IdParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { requireSession } from '../sessions/require-session.js';
import { projectTimeseries } from './console.service.js';

export function registerConsoleTimeseries(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/console/projects/:id/timeseries',
      params: IdParams,
      query: StatsQuery,
    },
    auth: requireSession,
    handler: async ({ request, ctx, params, query }) => {
      return projectTimeseries(ctx, request.accountId, params.id, query);
    },
  });
}
