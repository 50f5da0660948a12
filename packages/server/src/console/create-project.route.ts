import { type CreatedProject, NameBody } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { registerRoute } from '../http/route-contract.js';
import { createProject } from '../projects/project.service.js';
import { requireSession } from '../sessions/require-session.js';

export function registerConsoleCreateProject(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: { method: 'POST', url: '/v1/console/projects', body: NameBody },
    auth: requireSession,
    handler: async ({ request, reply, ctx, body }) => {
      const { name } = body;
      const { project, ingestKey } = await createProject(ctx.db, request.accountId, name);
      const response: CreatedProject = { project, ingest_key: ingestKey };
      return reply.code(201).send(response);
    },
  });
}
