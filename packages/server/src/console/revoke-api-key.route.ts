import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { revokeApiKeyOfAccount } from '../keys/key.service.js';
import { requireSession } from '../sessions/require-session.js';

export function registerConsoleRevokeApiKey(app: FastifyInstance, ctx: AppContext): void {
  app.delete<{ Params: { id: string } }>('/v1/console/api-keys/:id', {
    preHandler: requireSession(ctx),
    handler: async (request, reply) => {
      await revokeApiKeyOfAccount(ctx, request.accountId, request.params.id);
      return reply.code(204).send();
    },
  });
}
