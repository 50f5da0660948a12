import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors/api-error.js';
import { registerRoute } from '../http/route-contract.js';
import { getOwnedProject } from '../projects/project.service.js';
import { requireSession } from '../sessions/require-session.js';

const SecretParams = z.object({ id: z.string(), secretId: z.string() });

/** Revokes a forwarding secret: on this instance at once, on others within 10 s. */
export function registerConsoleRevokeForwardingSecret(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'DELETE',
      url: '/v1/console/projects/:id/forwarding-secrets/:secretId',
      params: SecretParams,
    },
    auth: requireSession,
    handler: async ({ request, reply, ctx, params }) => {
      const project = await getOwnedProject(ctx, request.accountId, params.id);
      if (!(await ctx.forwardingSecrets.revoke(project.id, params.secretId))) {
        throw new ApiError(
          'not_found',
          'This project has no active forwarding secret with this id (it may be revoked already). GET /v1/console/projects/{id}/forwarding-secrets lists them.',
        );
      }
      return reply.code(204).send();
    },
  });
}
