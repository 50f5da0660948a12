import { type CreatedForwardingSecret, CreateForwardingSecretBody } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { IdParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { getOwnedProject } from '../projects/project.service.js';
import { requireSession } from '../sessions/require-session.js';

/**
 * A new forwarding secret for a host app that forwards for many agents (limits/forwarding/):
 * the secret is in this response only; the server keeps its SHA-256.
 */
export function registerConsoleCreateForwardingSecret(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'POST',
      url: '/v1/console/projects/:id/forwarding-secrets',
      params: IdParams,
      body: CreateForwardingSecretBody,
    },
    auth: requireSession,
    handler: async ({ request, reply, ctx, params, body }) => {
      const project = await getOwnedProject(ctx, request.accountId, params.id);
      const { secret, info } = await ctx.forwardingSecrets.create(project.id, body.name);
      const response: CreatedForwardingSecret = { ...info, secret };
      return reply.code(201).header('cache-control', 'no-store').send(response);
    },
  });
}
