import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors/api-error.js';

/**
 * Sign-up and sign-in run before there is a session (so before a CSRF token): they refuse
 * requests a browser marks as coming from another site, so a hostile page cannot sign a
 * visitor in to an account of its choosing (login CSRF). Non-browser clients send neither
 * header and are not a CSRF vector.
 */
/** `assertSameOrigin` as a route's `auth`: runs before the body is parsed. */
export function requireSameOrigin(ctx: AppContext) {
  return async (request: FastifyRequest): Promise<void> => assertSameOrigin(ctx, request);
}

export function assertSameOrigin(ctx: AppContext, request: FastifyRequest): void {
  const site = request.headers['sec-fetch-site'];
  const origin = request.headers.origin;
  let refused = site === 'cross-site' || site === 'same-site';
  if (!refused && typeof origin === 'string') {
    const allowed = new Set([
      new URL(ctx.config.publicUrl).origin,
      `${request.protocol}://${request.host}`,
    ]);
    refused = !allowed.has(origin);
  }
  if (refused) {
    throw new ApiError(
      'csrf_failed',
      'Sign-up and sign-in are only accepted from the Debrief dashboard itself (same origin). Open the dashboard at this instance’s own address and retry.',
    );
  }
}
