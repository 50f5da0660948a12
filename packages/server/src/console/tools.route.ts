import { ToolStatsQuery } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { IdParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { requireSession } from '../sessions/require-session.js';
import { projectToolStats } from './console.service.js';

/**
 * Without from/to, all time: the table then agrees with the unfiltered tiles. A page at a time
 * (`page`, `limit` ≤ 100), with `pagination.total` tools in all.
 */
export function registerConsoleToolStats(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/console/projects/:id/tools',
      params: IdParams,
      query: ToolStatsQuery,
    },
    auth: requireSession,
    handler: async ({ request, ctx, params, query }) => {
      return projectToolStats(ctx, request.accountId, params.id, query);
    },
  });
}
