import {
  describeFieldErrors,
  fieldErrors,
  ReportInput,
  type SubmitReportResponse,
} from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { ApiError } from '../errors/api-error.js';
import { resolveIngestKey } from '../keys/key.service.js';
import { submitReport } from './report.service.js';

/** Any origin may submit: ingest keys are public, and agents run in browsers too. */
const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'Content-Type',
  'access-control-max-age': '86400',
};

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
      const body = request.body;
      if (body === undefined) {
        throw new ApiError(
          'invalid_body',
          'The request body is empty. Send a JSON object: {"ingest_key":"wk_…","outcome":"success","details":"what happened"}.',
        );
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new ApiError(
          'invalid_body',
          `The request body must be one JSON object, not ${Array.isArray(body) ? 'an array' : typeof body === 'object' ? 'null' : `a ${typeof body}`}. Send {"ingest_key":"wk_…","outcome":"success","details":"what happened"}.`,
        );
      }
      // The key is checked first, so a keyless request learns that before anything else.
      const target = await resolveIngestKey(ctx.db, (body as Record<string, unknown>).ingest_key);
      const parsed = ReportInput.safeParse(body);
      if (!parsed.success) {
        const errors = fieldErrors(parsed.error);
        throw new ApiError('validation_failed', `${describeFieldErrors(errors)}.`, { errors });
      }
      const report = await submitReport(ctx, target, parsed.data);
      const response: SubmitReportResponse = { ok: true, id: report.id };
      return reply.code(201).send(response);
    },
  });
}
