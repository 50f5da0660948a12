import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors/api-error.js';
import { assertCsrfToken, notAuthenticated } from '../sessions/require-session.js';
import { resolveSession, sessionIdOf } from '../sessions/session.service.js';
import { authenticateApiKeyWithScopes } from './key.service.js';

/**
 * Who may change a project's settings (its notification destinations): the dashboard session
 * with its CSRF token on writes, or an API key created with the `admin` scope. A key without it
 * is refused with 403 `missing_scope`, which names the scope. Reads of settings need it too: a
 * destination's URL is a secret of its own (a Slack incoming webhook posts to whoever has it).
 * Like `requireReader`, an Authorization header decides for the key; without one, the session.
 */
export function requireAdmin(ctx: AppContext) {
  return async (request: FastifyRequest): Promise<void> => {
    const authorization = request.headers.authorization;
    if (authorization === undefined && sessionIdOf(request)) {
      const session = await resolveSession(ctx, request);
      if (!session) throw notAuthenticated();
      if (request.method !== 'GET') assertCsrfToken(request, session);
      request.accountId = session.accountId;
      return;
    }
    const { accountId, scopes } = await authenticateApiKeyWithScopes(ctx, authorization);
    if (!scopes.includes('admin')) {
      throw new ApiError(
        'missing_scope',
        `This API key has the scope ${scopes.join(', ')} only; this request manages the project's settings and needs the "admin" scope. Create a key with "scopes": ["read", "admin"] (POST /v1/console/api-keys, the dashboard's API keys page, or debrief bootstrap --scopes read,admin) and send it instead, or use the dashboard.`,
      );
    }
    request.accountId = accountId;
  };
}
