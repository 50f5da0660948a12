import type { FastifyInstance } from 'fastify';
import { requireOperator } from '../accounts/require-operator.js';
import type { AppContext } from '../context.js';
import { IdParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { revokeInvitation } from '../invitations/invitation.service.js';

export function registerConsoleRevokeInvitation(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: { method: 'DELETE', url: '/v1/console/invitations/:id', params: IdParams },
    auth: requireOperator,
    handler: async ({ reply, ctx, params }) => {
      await revokeInvitation(ctx.db, params.id);
      return reply.code(204).send();
    },
  });
}
