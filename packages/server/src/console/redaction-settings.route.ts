import { RedactionSettings } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { parseBody } from '../http/body.js';
import { ConsoleProjectParams } from '../http/path-params.js';
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
      params: ConsoleProjectParams,
    },
    auth: requireSession,
    handler: async ({ request, ctx, params }) =>
      getRedactionSettings(ctx, request.accountId, params.id),
  });
  app.patch<{ Params: { id: string } }>('/v1/console/projects/:id/redaction', {
    preHandler: requireSession(ctx),
    handler: async (request) => {
      const settings = parseBody(RedactionSettings, request.body);
      return updateRedactionSettings(ctx, request.accountId, request.params.id, settings);
    },
  });
}
