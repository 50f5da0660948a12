import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { IdParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { getProjectLimits } from '../limits/limits.service.js';
import { requireSession } from '../sessions/require-session.js';

/** The project's ingest limits: its own settings, the instance's defaults, what applies now. */
export function registerConsoleGetProjectLimits(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/console/projects/:id/limits',
      params: IdParams,
    },
    auth: requireSession,
    handler: async ({ request, ctx, params }) =>
      getProjectLimits(ctx, request.accountId, params.id),
  });
}
