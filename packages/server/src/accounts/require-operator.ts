import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors/api-error.js';
import { requireSession } from '../sessions/require-session.js';
import { findAccountById } from './account.repository.js';

/**
 * Console routes only the operator may use (invitations): a live session (and, for writes, its
 * CSRF token) as every console route, then 403 `forbidden` for any other account.
 */
export function requireOperator(ctx: AppContext) {
  const session = requireSession(ctx);
  return async (request: FastifyRequest): Promise<void> => {
    await session(request);
    const account = await findAccountById(ctx.db, request.accountId);
    if (account?.is_operator !== 1) {
      throw new ApiError(
        'forbidden',
        'Only the operator of this Debrief instance (its first account) can manage invitations.',
      );
    }
  };
}
