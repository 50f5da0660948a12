import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { notAuthenticated } from '../sessions/require-session.js';
import { resolveSession, sessionIdOf } from '../sessions/session.service.js';
import { authenticateApiKey } from './key.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated account of a read request; set by `requireReader`. */
    accountId: string;
  }
}

/**
 * Who is reading: the account of the `Authorization: Bearer` API key or, when the request has
 * no Authorization header, of the dashboard session cookie. Reads change nothing, so the
 * session needs no CSRF token here (and SameSite=Lax keeps the cookie off cross-site fetches).
 * This is the one place that decides it.
 */
export function requireReader(ctx: AppContext) {
  return async (request: FastifyRequest): Promise<void> => {
    const authorization = request.headers.authorization;
    if (authorization === undefined && sessionIdOf(request)) {
      const session = await resolveSession(ctx, request);
      if (!session) throw notAuthenticated();
      request.accountId = session.accountId;
      return;
    }
    request.accountId = await authenticateApiKey(ctx, authorization);
  };
}
