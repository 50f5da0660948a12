import type { FastifyInstance } from 'fastify';
import { requireOperator } from '../accounts/require-operator.js';
import type { AppContext } from '../context.js';
import { listInvitations } from '../invitations/invitation.service.js';

/** The most recent invitations, newest first, without their tokens. */
export function registerConsoleListInvitations(app: FastifyInstance, ctx: AppContext): void {
  app.get('/v1/console/invitations', {
    preHandler: requireOperator(ctx),
    handler: async () => listInvitations(ctx.db),
  });
}
