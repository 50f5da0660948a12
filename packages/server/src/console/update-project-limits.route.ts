import { ProjectLimitSettings } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { IdParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { setProjectLimits } from '../limits/limits.service.js';
import { requireSession } from '../sessions/require-session.js';

/** Replaces the project's limit settings (a field left out or null = the instance's default). */
export function registerConsoleUpdateProjectLimits(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'PUT',
      url: '/v1/console/projects/:id/limits',
      params: IdParams,
      body: ProjectLimitSettings,
    },
    auth: requireSession,
    handler: async ({ request, ctx, params, body }) => {
      return setProjectLimits(ctx, request.accountId, params.id, body);
    },
  });
}
