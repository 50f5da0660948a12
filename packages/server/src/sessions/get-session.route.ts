import { problem } from '@debrief/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sessionInfo } from '../accounts/auth.service.js';
import { isFirstSignup } from '../accounts/signup.service.js';
import type { AppContext } from '../context.js';
import { sendProblem } from '../errors/error-handler.js';
import { registerRoute } from '../http/route-contract.js';
import { notAuthenticated } from './require-session.js';
import { resolveSession } from './session.service.js';

export function registerGetSession(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: { method: 'GET', url: '/v1/auth/session' },
    handler: ({ request, reply, ctx }) => currentSession(ctx, request, reply),
  });
}

async function currentSession(ctx: AppContext, request: FastifyRequest, reply: FastifyReply) {
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
}
