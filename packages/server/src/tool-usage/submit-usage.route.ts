import {
  LABEL_MAX_LENGTH,
  USAGE_COUNT_MAX,
  USAGE_TOOLS_MAX,
  USAGE_WINDOW_MAX_AGE_DAYS,
  UsageBody,
  UsageResponse,
} from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import { EXAMPLE_INGEST_KEY } from '../agent-resources/openapi-examples.js';
import type { AppContext } from '../context.js';
import { requireJsonObject, validateFields } from '../http/body.js';
import { documentRoute, type RouteContract } from '../http/route-contract.js';
import { checkIngestKeyFormat } from '../keys/key.service.js';
import { FORWARDING_HEADERS, forwardedOf } from '../limits/forwarding/forwarded-request.js';
import { recordUsage } from './usage.service.js';

const USAGE_EXAMPLE =
  '{"ingest_key":"wk_…","window_start":"2026-11-28T14:05:00Z","tools":{"search_issues":{"calls":120,"errors":3}}}';

const USAGE_CONTRACT: RouteContract = {
  method: 'POST',
  url: '/v1/usage',
  body: UsageBody,
  doc: {
    operationId: 'submitUsage',
    tags: ['Reports'],
    summary: 'Submit call counts',
    description: `How often a host's tools were called and failed in one UTC minute, so the dashboard and \`GET /v1/dashboard/{projectId}/tools\` can show error rates and reports per 1,000 calls. Sent by the MCP add-on and the Express router every minute and at shutdown; any host may send it. Authenticated by the public \`ingest_key\` in the body, checked first, and rate-limited by the same token buckets as POST /v1/reports (429 \`rate_limited\`); it stores no report and uses no quota. Idempotent: a resend of a window (same \`instance\`, same \`window_start\`) replaces that sender's counts of the tools it names instead of adding them again, so retry freely; tools it leaves out keep what was sent before. Give each sending process its own \`instance\` (a random id made at start), or two processes' counts of one minute replace each other. Bounds: at most ${USAGE_TOOLS_MAX} tools a request, tool names 1–${LABEL_MAX_LENGTH} characters, counts 0–${USAGE_COUNT_MAX.toLocaleString('en-US')} with \`errors\` ≤ \`calls\`, and a project's counts name at most as many distinct tools as its reports may (400 \`too_many_tool_names\` for a window bringing new ones past that); \`window_start\` a UTC minute that has started and is at most ${USAGE_WINDOW_MAX_AGE_DAYS} days old.`,
    security: [],
    headers: FORWARDING_HEADERS,
    requestExamples: {
      minute: {
        summary: 'One minute of two tools',
        value: {
          ingest_key: EXAMPLE_INGEST_KEY,
          window_start: '2026-11-28T14:05:00Z',
          instance: 'web-1-4f2a',
          server_version: '2.3.0',
          tools: {
            search_issues: { calls: 120, errors: 3 },
            create_issue: { calls: 8, errors: 0 },
          },
        },
      },
    },
    responses: {
      '200': {
        description: 'Stored: the window now holds these counts from this sender.',
        schema: UsageResponse,
        example: { ok: true, window_start: '2026-11-28T14:05:00Z', tools: 2 },
      },
    },
    errors: [
      'invalid_json',
      'invalid_body',
      'validation_failed',
      'missing_ingest_key',
      'invalid_ingest_key',
      'secret_key_not_allowed',
      'invalid_forwarding_secret',
      'payload_too_large',
      'rate_limited',
      'internal_error',
      'service_unavailable',
    ],
  },
};

/** Any origin may send counts, as reports: ingest keys are public. */
const CORS_PREFLIGHT_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'Content-Type',
  'access-control-max-age': '86400',
};

/**
 * A host's call counts, one UTC minute at a time: authenticated and rate-limited as reports are
 * (the key first, then the same token buckets), but storing no report and using no quota.
 * Registered by hand, as POST /v1/reports, so that the key is checked before the fields.
 */
export function registerSubmitUsage(app: FastifyInstance, ctx: AppContext): void {
  app.options('/v1/usage', async (_request, reply) =>
    reply.code(204).headers(CORS_PREFLIGHT_HEADERS).send(),
  );
  documentRoute(app, USAGE_CONTRACT);
  app.post('/v1/usage', {
    onRequest: (_request, reply, done) => {
      reply.header('access-control-allow-origin', '*');
      done();
    },
    handler: async (request, reply) => {
      const body = requireJsonObject(request.body, USAGE_EXAMPLE);
      const ingestKey = checkIngestKeyFormat(body.ingest_key);
      const admission = await ctx.ingestGate.admit(
        ingestKey,
        request.ip,
        forwardedOf(request.headers),
      );
      const input = validateFields(UsageBody, body);
      return reply.code(200).send(await recordUsage(ctx, admission, input));
    },
  });
}
