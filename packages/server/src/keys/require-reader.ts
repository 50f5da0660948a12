import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { authenticateApiKey } from './key.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated account of a read request; set by `requireReader`. */
    accountId: string;
  }
}

/**
 * Who is reading: the account of the `Authorization: Bearer` API key. This is the one place
 * that decides it, so other credentials (a dashboard session) plug in here.
 */
export function requireReader(ctx: AppContext) {
  return async (request: FastifyRequest): Promise<void> => {
    request.accountId = await authenticateApiKey(ctx.db, request.headers.authorization);
  };
}
