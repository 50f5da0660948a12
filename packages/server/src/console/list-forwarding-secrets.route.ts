import type { ForwardingSecretList } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { IdParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { getOwnedProject } from '../projects/project.service.js';
import { requireSession } from '../sessions/require-session.js';

/** A project's forwarding secrets (limits/forwarding/), newest first, without the secrets. */
export function registerConsoleListForwardingSecrets(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/console/projects/:id/forwarding-secrets',
      params: IdParams,
    },
    auth: requireSession,
    handler: async ({ request, ctx, params }): Promise<ForwardingSecretList> => {
      const project = await getOwnedProject(ctx, request.accountId, params.id);
      return { secrets: await ctx.forwardingSecrets.list(project.id) };
    },
  });
}
