import { SigninBody } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { registerRoute } from '../http/route-contract.js';
import { requireSameOrigin } from '../sessions/same-origin.js';
import { createSession, setSessionCookie } from '../sessions/session.service.js';
import { createAuthenticator, sessionInfo } from './auth.service.js';
import { SigninThrottle } from './signin-throttle.js';

export function registerSignin(app: FastifyInstance, ctx: AppContext): void {
  // The failure counters live in the database, shared with every instance on it.
  const authenticator = createAuthenticator(ctx, new SigninThrottle(ctx.db));
  registerRoute(app, ctx, {
    contract: { method: 'POST', url: '/v1/auth/signin', body: SigninBody },
    auth: requireSameOrigin,
    handler: async ({ request, reply, ctx, body }) => {
      const account = await authenticator.signIn(body, request.ip);
      const session = await createSession(ctx.db, account.id);
      setSessionCookie(ctx, request, reply, session.id);
      reply.header('cache-control', 'no-store');
      return sessionInfo(ctx, account, session.csrfToken);
    },
  });
}
