import { SignupBody } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { registerRoute } from '../http/route-contract.js';
import { requireSameOrigin } from '../sessions/same-origin.js';
import { createSession, setSessionCookie } from '../sessions/session.service.js';
import { sessionInfo } from './auth.service.js';
import { signUp } from './signup.service.js';
import { SignupThrottle } from './signup-throttle.js';

export function registerSignup(app: FastifyInstance, ctx: AppContext): void {
  // Its counters live in the database, shared with every instance, as sign-in's do.
  const throttle = new SignupThrottle(ctx.db, ctx.config.signupsPerAddress);
  registerRoute(app, ctx, {
    contract: { method: 'POST', url: '/v1/auth/signup', body: SignupBody },
    auth: requireSameOrigin,
    handler: async ({ request, reply, ctx, body }) => {
      const account = await signUp(ctx, throttle, body, request.ip);
      const session = await createSession(ctx.db, account.id);
      setSessionCookie(ctx, request, reply, session.id);
      reply.header('cache-control', 'no-store');
      return reply.code(201).send(await sessionInfo(ctx, account, session.csrfToken));
    },
  });
}
