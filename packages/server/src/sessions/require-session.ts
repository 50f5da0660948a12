import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors/api-error.js';
import { resolveSession, type Session } from './session.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The dashboard session of the request; set by `requireSession`. */
    session: Session | null;
  }
}

export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Declares `request.session`; call once before the routes that use `requireSession`. */
export function registerSessions(app: FastifyInstance): void {
  app.decorateRequest('session', null);
}

export function notAuthenticated(): ApiError {
  return new ApiError(
    'not_authenticated',
    'You are not signed in, or your session has expired. Sign in to the dashboard (POST /v1/auth/signin) and retry; API clients use "Authorization: Bearer wk_sk_…" on the /v1/projects and /v1/dashboard endpoints instead.',
  );
}

function sameToken(expected: string, received: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(received);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** 403 unless the request carries the session's CSRF token (compared in constant time). */
export function assertCsrfToken(request: FastifyRequest, session: Session): void {
  const header = request.headers[CSRF_HEADER];
  if (typeof header !== 'string' || !sameToken(session.csrfToken, header)) {
    throw new ApiError(
      'csrf_failed',
      `This request changes data and needs the header ${CSRF_HEADER} with the csrf_token of GET /v1/auth/session. Reload the dashboard and retry.`,
    );
  }
}

/**
 * Dashboard routes: a live session cookie, and for every state-changing method the session's
 * CSRF token in `x-csrf-token` (a cross-site form or fetch cannot read it, so cannot send it).
 */
export function requireSession(ctx: AppContext) {
  return async (request: FastifyRequest): Promise<void> => {
    const session = await resolveSession(ctx, request);
    if (!session) throw notAuthenticated();
    if (!SAFE_METHODS.has(request.method)) assertCsrfToken(request, session);
    request.session = session;
    request.accountId = session.accountId;
  };
}
