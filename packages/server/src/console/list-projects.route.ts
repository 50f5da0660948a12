import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { requireSession } from '../sessions/require-session.js';
import { listConsoleProjects } from './console.service.js';

export function registerConsoleListProjects(app: FastifyInstance, ctx: AppContext): void {
  app.get('/v1/console/projects', {
    preHandler: requireSession(ctx),
    handler: async (request) => listConsoleProjects(request.ctx, request.accountId),
  });
}
