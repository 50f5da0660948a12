import { SignupBody } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { parseBody } from '../http/body.js';
import { assertSameOrigin } from '../sessions/same-origin.js';
import { createSession, setSessionCookie } from '../sessions/session.service.js';
import { sessionInfo } from './auth.service.js';
import { signUp } from './signup.service.js';
import { SignupThrottle } from './signup-throttle.js';

export function registerSignup(app: FastifyInstance, ctx: AppContext): void {
  // Its counters live in the database, shared with every instance, as sign-in's do.
  const throttle = new SignupThrottle(ctx.db, ctx.config.signupsPerAddress);
  app.post('/v1/auth/signup', async (request, reply) => {
    assertSameOrigin(ctx, request);
    const body = parseBody(SignupBody, request.body);
    const account = await signUp(ctx, throttle, body, request.ip);
    const session = await createSession(ctx.db, account.id);
    setSessionCookie(ctx, request, reply, session.id);
    reply.header('cache-control', 'no-store');
    return reply.code(201).send(await sessionInfo(ctx, account, session.csrfToken));
  });
}
