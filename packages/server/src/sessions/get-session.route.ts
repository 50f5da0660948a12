import { problem } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import { sessionInfo } from '../accounts/auth.service.js';
import { isFirstSignup } from '../accounts/signup.service.js';
import type { AppContext } from '../context.js';
import { sendProblem } from '../errors/error-handler.js';
import { notAuthenticated } from './require-session.js';
import { resolveSession } from './session.service.js';

export function registerGetSession(app: FastifyInstance, ctx: AppContext): void {
  app.get('/v1/auth/session', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const session = await resolveSession(ctx, request);
    if (!session) {
      // The sign-in page learns from this same answer whether to offer sign-up.
      const body = problem(ctx.config.publicUrl, 'not_authenticated', notAuthenticated().detail);
      return sendProblem(
        reply,
        Object.assign(body, {
          signups: ctx.config.signups,
          first_signup: await isFirstSignup(ctx),
        }),
      );
    }
    return sessionInfo(ctx, { id: session.accountId, email: session.email }, session.csrfToken);
  });
}
