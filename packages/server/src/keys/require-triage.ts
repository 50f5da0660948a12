import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors/api-error.js';
import type { IssueActor } from '../issues/issue-activity.repository.js';
import { assertCsrfToken, notAuthenticated } from '../sessions/require-session.js';
import { resolveSession, sessionIdOf } from '../sessions/session.service.js';
import { authenticateApiKeyWithScopes } from './key.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who triages, as an issue's history names them; set by `requireTriage`. */
    actor: IssueActor;
  }
}

/**
 * Who may triage (change an issue's status or note, merge issues, move reports): the
 * dashboard session with its CSRF token, or an API key created with the `triage` scope. A key
 * without it is refused with 403 `missing_scope`, which names the scope. Like `requireReader`,
 * an Authorization header decides for the key; without one, the session cookie.
 */
export function requireTriage(ctx: AppContext) {
  return async (request: FastifyRequest): Promise<void> => {
    const authorization = request.headers.authorization;
    if (authorization === undefined && sessionIdOf(request)) {
      const session = await resolveSession(ctx, request);
      if (!session) throw notAuthenticated();
      assertCsrfToken(request, session);
      request.accountId = session.accountId;
      request.actor = { type: 'user', name: session.email };
      return;
    }
    const { accountId, scopes, label } = await authenticateApiKeyWithScopes(ctx, authorization);
    if (!scopes.includes('triage')) {
      throw new ApiError(
        'missing_scope',
        `This API key has the scope ${scopes.join(', ')} only; this request changes issues or reports and needs the "triage" scope. Create a key with "scopes": ["read", "triage"] (POST /v1/console/api-keys, or the dashboard's API keys page) and send it instead, or triage from the dashboard.`,
      );
    }
    request.accountId = accountId;
    request.actor = { type: 'api_key', name: label };
  };
}
