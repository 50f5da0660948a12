import { SignupBody } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors/api-error.js';
import { parseBody } from '../http/body.js';
import { assertSameOrigin } from '../sessions/same-origin.js';
import { createSession, setSessionCookie } from '../sessions/session.service.js';
import { findAccountByEmail } from './account.repository.js';
import { createAccount, normalizeEmail } from './account.service.js';
import { sessionInfo } from './auth.service.js';

export function registerSignup(app: FastifyInstance, ctx: AppContext): void {
  app.post('/v1/auth/signup', async (request, reply) => {
    assertSameOrigin(ctx, request);
    if (ctx.config.signups === 'closed') {
      throw new ApiError(
        'signups_closed',
        'Sign-ups are closed on this Debrief instance. Ask its operator for an account (created with `debrief bootstrap`), then sign in.',
      );
    }
    const body = parseBody(SignupBody, request.body);
    const account = await createAccount(ctx.db, body).catch(async (error: unknown) => {
      // Two sign-ups with one email at once: the unique index refuses the second insert.
      if (
        !(error instanceof ApiError) &&
        (await findAccountByEmail(ctx.db, normalizeEmail(body.email)))
      )
        throw new ApiError(
          'conflict',
          `An account with the email ${normalizeEmail(body.email)} already exists. Sign in instead.`,
        );
      throw error;
    });
    const session = await createSession(ctx.db, account.id);
    setSessionCookie(ctx, request, reply, session.id);
    reply.header('cache-control', 'no-store');
    return reply.code(201).send(await sessionInfo(ctx, account, session.csrfToken));
  });
}
