import { CreateInvitationBody } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import { requireOperator } from '../accounts/require-operator.js';
import type { AppContext } from '../context.js';
import { registerRoute } from '../http/route-contract.js';
import { createInvitation } from '../invitations/invitation.service.js';

/** The link (with its token) is in this response only; the server keeps the token's SHA-256. */
export function registerConsoleCreateInvitation(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: { method: 'POST', url: '/v1/console/invitations', body: CreateInvitationBody },
    auth: requireOperator,
    handler: async ({ request, reply, ctx, body }) => {
      const invitation = await createInvitation(ctx.db, {
        publicUrl: ctx.config.publicUrl,
        email: body.email ?? null,
        expiresInHours: body.expires_in_hours,
        createdBy: request.accountId,
      });
      return reply.code(201).header('cache-control', 'no-store').send(invitation);
    },
  });
}
