import { ReportInput, type SubmitReportResponse } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { requireJsonObject, validateFields } from '../http/body.js';
import { resolveIngestKey } from '../keys/key.service.js';
import { submitReport } from './report.service.js';

/** Any origin may submit: ingest keys are public, and agents run in browsers too. */
const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'Content-Type',
  'access-control-max-age': '86400',
};

const SUBMIT_EXAMPLE = '{"ingest_key":"wk_…","outcome":"success","details":"what happened"}';

export function registerSubmitReport(app: FastifyInstance, ctx: AppContext): void {
  app.options('/v1/reports', async (_request, reply) =>
    reply.code(204).headers(CORS_HEADERS).send(),
  );

  app.post('/v1/reports', {
    // Set before the body is parsed, so that errors (413, invalid JSON) are readable cross-origin.
    onRequest: async (_request, reply) => {
      reply.headers(CORS_HEADERS);
    },
    handler: async (request, reply) => {
      const body = requireJsonObject(request.body, SUBMIT_EXAMPLE);
      // The key is checked first, so a keyless request learns that before anything else.
      const target = await resolveIngestKey(ctx.db, body.ingest_key);
      const input = validateFields(ReportInput, body);
      const report = await submitReport(ctx, target, input);
      const response: SubmitReportResponse = { ok: true, id: report.id };
      return reply.code(201).send(response);
    },
  });
}
