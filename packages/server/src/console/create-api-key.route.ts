import { CreateApiKeyBody, type CreatedApiKey, formatWireTimestamp } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { parseBody } from '../http/body.js';
import { createApiKey } from '../keys/key.service.js';
import { requireSession } from '../sessions/require-session.js';

/**
 * The secret is in this response only; the server keeps its SHA-256. `scopes` (default
 * `["read"]`) may add `triage`: writes to issues and reports (issue 18).
 */
export function registerConsoleCreateApiKey(app: FastifyInstance, ctx: AppContext): void {
  app.post('/v1/console/api-keys', {
    preHandler: requireSession(ctx),
    handler: async (request, reply) => {
      const { name, scopes } = parseBody(CreateApiKeyBody, request.body);
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
