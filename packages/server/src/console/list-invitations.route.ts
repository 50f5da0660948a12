import type { FastifyInstance } from 'fastify';
import { requireOperator } from '../accounts/require-operator.js';
import type { AppContext } from '../context.js';
import { registerRoute } from '../http/route-contract.js';
import { listInvitations } from '../invitations/invitation.service.js';

/** The most recent invitations, newest first, without their tokens. */
export function registerConsoleListInvitations(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: { method: 'GET', url: '/v1/console/invitations' },
    auth: requireOperator,
    handler: async ({ ctx }) => listInvitations(ctx.db),
  });
}
