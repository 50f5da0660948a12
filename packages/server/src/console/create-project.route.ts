import { type CreatedProject, NameBody } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { parseBody } from '../http/body.js';
import { createProject } from '../projects/project.service.js';
import { requireSession } from '../sessions/require-session.js';

export function registerConsoleCreateProject(app: FastifyInstance, ctx: AppContext): void {
  app.post('/v1/console/projects', {
    preHandler: requireSession(ctx),
    handler: async (request, reply) => {
      const { name } = parseBody(NameBody, request.body);
      const { project, ingestKey } = await createProject(ctx.db, request.accountId, name);
      const response: CreatedProject = { project, ingest_key: ingestKey };
      return reply.code(201).send(response);
    },
  });
}
