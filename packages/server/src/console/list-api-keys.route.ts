import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { requireSession } from '../sessions/require-session.js';
import { listConsoleApiKeys } from './console.service.js';

export function registerConsoleListApiKeys(app: FastifyInstance, ctx: AppContext): void {
  app.get('/v1/console/api-keys', {
    preHandler: requireSession(ctx),
    handler: async (request) => listConsoleApiKeys(ctx, request.accountId),
  });
}
