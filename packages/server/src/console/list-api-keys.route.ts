import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { registerRoute } from '../http/route-contract.js';
import { requireSession } from '../sessions/require-session.js';
import { listConsoleApiKeys } from './console.service.js';

export function registerConsoleListApiKeys(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: { method: 'GET', url: '/v1/console/api-keys' },
    auth: requireSession,
    handler: async ({ request, ctx }) => listConsoleApiKeys(ctx, request.accountId),
  });
}
