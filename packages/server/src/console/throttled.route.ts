import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { IdParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { getThrottledStats } from '../limits/limits.service.js';
import { requireSession } from '../sessions/require-session.js';

/** Submissions refused by the ingest limits in the last 7 days, and the addresses behind them. */
export function registerConsoleThrottled(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/console/projects/:id/throttled',
      params: IdParams,
    },
    auth: requireSession,
    handler: async ({ request, ctx, params }) =>
      getThrottledStats(ctx, request.accountId, params.id),
  });
}
