import type { FastifyInstance } from 'fastify';
import { requireOperator } from '../accounts/require-operator.js';
import type { AppContext } from '../context.js';
import { revokeInvitation } from '../invitations/invitation.service.js';

export function registerConsoleRevokeInvitation(app: FastifyInstance, ctx: AppContext): void {
  app.delete<{ Params: { id: string } }>('/v1/console/invitations/:id', {
    preHandler: requireOperator(ctx),
    handler: async (request, reply) => {
      await revokeInvitation(ctx.db, request.params.id);
      return reply.code(204).send();
    },
  });
}
