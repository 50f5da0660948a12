import { StatsQuery } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { IdParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { requireSession } from '../sessions/require-session.js';
import { projectSourceStats } from './console.service.js';

/** The source filter's choices: the project's busiest sources under from/to/tool_name. */
export function registerConsoleSourceStats(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/console/projects/:id/sources',
      params: IdParams,
      query: StatsQuery,
    },
    auth: requireSession,
    handler: async ({ request, ctx, params, query }) => {
      return projectSourceStats(ctx, request.accountId, params.id, query);
    },
  });
}
