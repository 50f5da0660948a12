import { CreateApiKeyBody, type CreatedApiKey, formatWireTimestamp } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { registerRoute } from '../http/route-contract.js';
import { createApiKey } from '../keys/key.service.js';
import { requireSession } from '../sessions/require-session.js';

/**
 * The secret is in this response only; the server keeps its SHA-256. `scopes` (default
 * `["read"]`) may add `triage`: writes to issues and reports.
 */
export function registerConsoleCreateApiKey(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: { method: 'POST', url: '/v1/console/api-keys', body: CreateApiKeyBody },
    auth: requireSession,
    handler: async ({ request, reply, ctx, body }) => {
      const { name, scopes } = body;
      const key = await createApiKey(ctx.db, request.accountId, name, scopes);
      const response: CreatedApiKey = {
        id: key.id,
        name: key.name,
        prefix: key.prefix,
        created_at: formatWireTimestamp(key.createdAt),
        scopes: key.scopes,
        key: key.key,
      };
      return reply.code(201).header('cache-control', 'no-store').send(response);
    },
  });
}
