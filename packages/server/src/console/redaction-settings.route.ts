import { RedactionSettings } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { IdParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import {
  getRedactionSettings,
  updateRedactionSettings,
} from '../reports/screening/redaction-settings.service.js';
import { requireSession } from '../sessions/require-session.js';

/** The project's redaction option: also redact email addresses and phone numbers. */
export function registerConsoleRedactionSettings(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/console/projects/:id/redaction',
      params: IdParams,
    },
    auth: requireSession,
    handler: async ({ request, ctx, params }) =>
      getRedactionSettings(ctx, request.accountId, params.id),
  });
  registerRoute(app, ctx, {
    contract: {
      method: 'PATCH',
      url: '/v1/console/projects/:id/redaction',
      params: IdParams,
      body: RedactionSettings,
    },
    auth: requireSession,
    handler: async ({ request, ctx, params, body }) => {
      return updateRedactionSettings(ctx, request.accountId, params.id, body);
    },
  });
}
