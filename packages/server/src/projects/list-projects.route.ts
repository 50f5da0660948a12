import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { requireReader } from '../keys/require-reader.js';
import { listProjects } from './project.service.js';

export function registerListProjects(app: FastifyInstance, ctx: AppContext): void {
  app.get('/v1/projects', {
    preHandler: requireReader(ctx),
    handler: async (request) => listProjects(request.ctx.db, request.accountId),
  });
}
