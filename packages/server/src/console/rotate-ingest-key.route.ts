import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { rotateIngestKey } from '../keys/key.service.js';
import { getOwnedProject } from '../projects/project.service.js';
import { requireSession } from '../sessions/require-session.js';

/** Revokes the project's ingest key (401 from the next submit on) and issues a new one. */
export function registerConsoleRotateIngestKey(app: FastifyInstance, ctx: AppContext): void {
  app.post<{ Params: { id: string } }>('/v1/console/projects/:id/ingest-key/rotate', {
    preHandler: requireSession(ctx),
    handler: async (request) => {
      const project = await getOwnedProject(ctx, request.accountId, request.params.id);
      const ingestKey = await rotateIngestKey(ctx.db, project.id);
      // The old key's cached settings go at once (the writer refuses it in any case).
      ctx.ingestGate.forget(project.id);
      return { ingest_key: ingestKey };
    },
  });
}
