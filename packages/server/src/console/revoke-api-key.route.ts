import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { IdParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { revokeApiKeyOfAccount } from '../keys/key.service.js';
import { requireSession } from '../sessions/require-session.js';

export function registerConsoleRevokeApiKey(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: { method: 'DELETE', url: '/v1/console/api-keys/:id', params: IdParams },
    auth: requireSession,
    handler: async ({ request, reply, ctx, params }) => {
      await revokeApiKeyOfAccount(ctx, request.accountId, params.id);
      return reply.code(204).send();
    },
  });
}
