import { RedactionSettings } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { parseBody } from '../http/body.js';
import {
  getRedactionSettings,
  updateRedactionSettings,
} from '../reports/screening/redaction-settings.service.js';
import { requireSession } from '../sessions/require-session.js';

/** The project's redaction option: also redact email addresses and phone numbers. */
export function registerConsoleRedactionSettings(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: { id: string } }>('/v1/console/projects/:id/redaction', {
    preHandler: requireSession(ctx),
    handler: async (request) => getRedactionSettings(ctx, request.accountId, request.params.id),
  });
  app.patch<{ Params: { id: string } }>('/v1/console/projects/:id/redaction', {
    preHandler: requireSession(ctx),
    handler: async (request) => {
      const settings = parseBody(RedactionSettings, request.body);
      return updateRedactionSettings(ctx, request.accountId, request.params.id, settings);
    },
  });
}
