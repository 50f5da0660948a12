import {
  OUTCOMES,
  parsePlainReportInput,
  ReportInput,
  SubmitReportBody,
  SubmitReportResponse,
} from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import { SUBMIT_ERROR_CODES } from '../agent-resources/error-guide.js';
import {
  EXAMPLE_ID,
  EXAMPLE_INGEST_KEY,
  EXAMPLE_SUBMIT_ISSUE,
} from '../agent-resources/openapi-examples.js';
import { OUTCOME_EXAMPLE_TOOLS, OUTCOME_EXAMPLES } from '../agent-resources/skill-document.js';
import type { AppContext } from '../context.js';
import { requireJsonObject, validateFields } from '../http/body.js';
import { documentRoute, type RouteContract } from '../http/route-contract.js';
import { checkIngestKeyFormat, requireKnownIngestKey } from '../keys/key.service.js';
import { FORWARDING_HEADERS, forwardedOf } from '../limits/forwarding/forwarded-request.js';
import { submitReport } from './report.service.js';

/** Any origin may submit: ingest keys are public, and agents run in browsers too. */
const CORS_PREFLIGHT_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'Content-Type',
  'access-control-max-age': '86400',
};

const SUBMIT_EXAMPLE = '{"ingest_key":"wk_…","outcome":"success","details":"what happened"}';

const SUBMIT_CONTRACT: RouteContract = {
  method: 'POST',
  url: '/v1/reports',
  body: SubmitReportBody,
  doc: {
    operationId: 'submitReport',
    tags: ['Reports'],
    summary: 'Submit a report',
    description:
      'An agent says how a tool worked. Authenticated by the public `ingest_key` in the body (no header). The body is parsed as JSON whatever the Content-Type says. The key is checked before the other fields. CORS: any origin may call it. Quota: a 429 `quota_exceeded` stores nothing. Rate limits: token buckets per ingest key and per client address, and a daily share of the monthly quota per address; a 429 `rate_limited` (with `Retry-After`, `RateLimit` and `RateLimit-Policy`) stores nothing and uses no quota. Secrets: credentials (cloud, GitHub, Slack, Stripe, OpenAI, Anthropic and npm keys, JWTs, bearer tokens, private keys, passwords in URLs and connection strings, Debrief API keys) in `details`, `tool_name`, `source` and metadata values are replaced by `[REDACTED:<kind>]` before anything is stored, and `redactions` says how many; a project can ask for email addresses and phone numbers too. Labels: a project holds a limited number of distinct `tool_name` and `source` values (1,000 each by default); a report with a new one past that is a 400 `too_many_tool_names` / `too_many_sources` and stores nothing. The answer: when the report joins an issue the developer has told agents about (an `agent_note`, or resolved or ignored), `issue` says so; an agent should read `agent_note` and act on it (apply the workaround, upgrade, stop retrying) instead of reporting the same problem again. The answer waits at most a bounded time (200 ms by default) for the issue of the report; without it the answer is the plain one.',
    security: [],
    headers: FORWARDING_HEADERS,
    requestExamples: Object.fromEntries(
      OUTCOMES.map((outcome) => [
        outcome,
        {
          summary: `A ${outcome} report`,
          value: {
            ingest_key: EXAMPLE_INGEST_KEY,
            outcome,
            tool_name: OUTCOME_EXAMPLE_TOOLS[outcome],
            source: 'claude-code',
            details: OUTCOME_EXAMPLES[outcome],
          },
        },
      ]),
    ),
    responses: {
      '201': {
        description:
          'Stored (committed: it survives a crash of the server). `issue` is added when the report joined an issue with an agent note, or a resolved or ignored one (the example); most answers are `{ok, id, redactions}` alone.',
        schema: SubmitReportResponse,
        example: { ok: true, id: EXAMPLE_ID, redactions: 0, issue: EXAMPLE_SUBMIT_ISSUE },
      },
    },
    errors: SUBMIT_ERROR_CODES,
  },
};

export function registerSubmitReport(app: FastifyInstance, ctx: AppContext): void {
  app.options('/v1/reports', async (_request, reply) =>
    reply.code(204).headers(CORS_PREFLIGHT_HEADERS).send(),
  );

  // The hot path keeps its own validation (the fast path, then the schema for the messages):
  // its contract is recorded for the document only.
  documentRoute(app, SUBMIT_CONTRACT);
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
      const admitted = ctx.ingestGate.admit(ingestKey, request.ip, forwardedOf(request.headers));
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
      const { report, issue } = await submitReport(ctx, ingestKey, input, admission);
      const response: SubmitReportResponse = {
        ok: true,
        id: report.id,
        redactions: report.redactions,
      };
      if (issue) response.issue = issue;
      return reply.code(201).send(response);
    },
  });
}
