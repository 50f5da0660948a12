import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { getThrottledStats } from '../limits/limits.service.js';
import { requireSession } from '../sessions/require-session.js';

/** Submissions refused by the ingest limits in the last 7 days, and the addresses behind them. */
export function registerConsoleThrottled(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: { id: string } }>('/v1/console/projects/:id/throttled', {
    preHandler: requireSession(ctx),
    handler: async (request) =>
      getThrottledStats(request.ctx, request.accountId, request.params.id),
  });
}
