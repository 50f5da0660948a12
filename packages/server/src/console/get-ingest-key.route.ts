import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { IdParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { getIngestKey, issueIngestKey } from '../keys/key.service.js';
import { getOwnedProject } from '../projects/project.service.js';
import { requireSession } from '../sessions/require-session.js';

/** Ingest keys are public by design: shown any time, unlike API keys. */
export function registerConsoleGetIngestKey(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/console/projects/:id/ingest-key',
      params: IdParams,
    },
    auth: requireSession,
    handler: async ({ request, ctx, params }) => {
      const project = await getOwnedProject(ctx, request.accountId, params.id);
      // Every project is created with a key; issue one should a project somehow have none.
      const key =
        (await getIngestKey(ctx.db, project.id)) ?? (await issueIngestKey(ctx.db, project.id));
      return { ingest_key: key };
    },
  });
}
