import { parsePlainReportInput, ReportInput, type SubmitReportResponse } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { requireJsonObject, validateFields } from '../http/body.js';
import { checkIngestKeyFormat, requireKnownIngestKey } from '../keys/key.service.js';
import { submitReport } from './report.service.js';

/** Any origin may submit: ingest keys are public, and agents run in browsers too. */
const CORS_PREFLIGHT_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'Content-Type',
  'access-control-max-age': '86400',
};

const SUBMIT_EXAMPLE = '{"ingest_key":"wk_…","outcome":"success","details":"what happened"}';

export function registerSubmitReport(app: FastifyInstance, ctx: AppContext): void {
  app.options('/v1/reports', async (_request, reply) =>
    reply.code(204).headers(CORS_PREFLIGHT_HEADERS).send(),
  );

  app.post('/v1/reports', {
    // Set before the body is parsed, so that errors (413, invalid JSON) are readable cross-origin.
    // The actual request needs only this one; the rest answer the preflight.
    // A callback hook: an async one costs every submission a promise.
    onRequest: (_request, reply, done) => {
      reply.header('access-control-allow-origin', '*');
      done();
    },
    handler: async (request, reply) => {
      const body = requireJsonObject(request.body, SUBMIT_EXAMPLE);
      // The key is checked first, so a keyless request learns that before anything else.
      const ingestKey = checkIngestKeyFormat(body.ingest_key);
      // The token buckets (limits/ingest-gate.ts), before the fields: a flood of invalid
      // bodies is throttled too, and costs no key lookup past its bucket. Synchronous unless the
      // key's settings are not cached, so most submissions pay no promise for them.
      const admitted = ctx.ingestGate.admit(ingestKey, request.ip);
      const admission = admitted instanceof Promise ? await admitted : admitted;
      // Most reports are plainly valid and skip zod; the rest get the schema and its messages.
      let input = parsePlainReportInput(body);
      if (!input) {
        try {
          input = validateFields(ReportInput, body);
        } catch (error) {
          // An unknown key outranks invalid fields; valid submissions have it checked by the writer.
          await requireKnownIngestKey(ctx.db, ingestKey);
          throw error;
        }
      }
      const report = await submitReport(ctx, ingestKey, input, admission);
      const response: SubmitReportResponse = {
        ok: true,
        id: report.id,
        redactions: report.redactions,
      };
      return reply.code(201).send(response);
    },
  });
}
