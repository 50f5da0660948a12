import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { registerRoute } from '../http/route-contract.js';
import { requireSession } from '../sessions/require-session.js';
import { listConsoleProjects } from './console.service.js';

export function registerConsoleListProjects(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: { method: 'GET', url: '/v1/console/projects' },
    auth: requireSession,
    handler: async ({ request, ctx }) => listConsoleProjects(ctx, request.accountId),
  });
}
