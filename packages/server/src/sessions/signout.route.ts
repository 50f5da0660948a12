import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { registerRoute } from '../http/route-contract.js';
import { assertCsrfToken } from './require-session.js';
import { clearSessionCookie, endSession, resolveSession } from './session.service.js';

/** Deletes the session server-side and clears the cookie; without a session it only clears. */
export function registerSignout(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: { method: 'POST', url: '/v1/auth/signout' },
    handler: async ({ request, reply, ctx }) => {
      const session = await resolveSession(ctx, request);
      if (session) {
        assertCsrfToken(request, session);
        await endSession(ctx, request);
      }
      clearSessionCookie(ctx, request, reply);
      return reply.code(204).send();
    },
  });
}
