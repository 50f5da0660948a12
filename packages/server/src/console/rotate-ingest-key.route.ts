import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { IdParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { rotateIngestKey } from '../keys/key.service.js';
import { getOwnedProject } from '../projects/project.service.js';
import { requireSession } from '../sessions/require-session.js';

/** Revokes the project's ingest key (401 from the next submit on) and issues a new one. */
export function registerConsoleRotateIngestKey(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'POST',
      url: '/v1/console/projects/:id/ingest-key/rotate',
      params: IdParams,
    },
    auth: requireSession,
    handler: async ({ request, ctx, params }) => {
      const project = await getOwnedProject(ctx, request.accountId, params.id);
      const ingestKey = await rotateIngestKey(ctx.db, project.id);
      // The old key's cached settings go at once (the writer refuses it in any case).
      ctx.ingestGate.forget(project.id);
      return { ingest_key: ingestKey };
    },
  });
}
