import { DEFAULT_PAGE_LIMIT, OUTCOMES } from '@debrief/protocol';
import { READ_AUTH_ERROR_CODES, SUBMIT_ERROR_CODES } from './error-guide.js';
import { issueComponentSchemas, issuePaths } from './openapi-issue-paths.js';
import { resourcePaths } from './openapi-resource-paths.js';
import { problemResponses, ref } from './openapi-responses.js';
import {
  componentSchemas,
  type JsonSchema,
  listReportsQueryParameters,
} from './openapi-schemas.js';
import { OUTCOME_EXAMPLE_TOOLS, OUTCOME_EXAMPLES } from './skill-document.js';

const EXAMPLE_ID = '019a8f3c5e7b7c2d9f10a4b6c8d0e2f4';
const EXAMPLE_PROJECT_ID = '019a8f3b11aa7e55b0c4d2e6f8a0b1c3';
const EXAMPLE_INGEST_KEY = 'wk_3f2a9c4e1b7d6a8f0e5c2b9d4a7f1e3c';

const EXAMPLE_REPORT = {
  id: EXAMPLE_ID,
  outcome: 'confusing',
  tool_name: OUTCOME_EXAMPLE_TOOLS.confusing,
  source: 'claude-code',
  details: OUTCOME_EXAMPLES.confusing,
  metadata: { client: 'claude-code', model: 'x-1' },
  created_at: '2026-11-21T14:30:00Z',
  redactions: 0,
  issue_id: '019a8f3d0c1e7a2b8c4d6e8f0a1b2c3d',
  issue_reason: 'same tool, 0.82 similar to the issue',
};

const READ_SECURITY = [{ ApiKey: [] }, { DashboardSession: [] }];

function paths(base: string): Record<string, JsonSchema> {
  const projectId = {
    name: 'projectId',
    in: 'path',
    required: true,
    description: 'Id of one of your projects (32 lowercase hex characters), from GET /v1/projects.',
    schema: { type: 'string' },
  };
  return {
    '/v1/reports': {
      post: {
        operationId: 'submitReport',
        tags: ['Reports'],
        summary: 'Submit a report',
        description:
          'An agent says how a tool worked. Authenticated by the public `ingest_key` in the body (no header). The body is parsed as JSON whatever the Content-Type says. The key is checked before the other fields. CORS: any origin may call it. Quota: a 429 `quota_exceeded` stores nothing. Rate limits: token buckets per ingest key and per client address, and a daily share of the monthly quota per address; a 429 `rate_limited` (with `Retry-After`, `RateLimit` and `RateLimit-Policy`) stores nothing and uses no quota. Secrets: credentials (cloud, GitHub, Slack, Stripe, OpenAI, Anthropic and npm keys, JWTs, bearer tokens, private keys, passwords in URLs and connection strings, Debrief API keys) in `details`, `tool_name`, `source` and metadata values are replaced by `[REDACTED:<kind>]` before anything is stored, and `redactions` says how many; a project can ask for email addresses and phone numbers too. Labels: a project holds a limited number of distinct `tool_name` and `source` values (1,000 each by default); a report with a new one past that is a 400 `too_many_tool_names` / `too_many_sources` and stores nothing.',
        security: [],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: ref('SubmitReportBody'),
              examples: Object.fromEntries(
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
            },
          },
        },
        responses: {
          '201': {
            description: 'Stored (committed: it survives a crash of the server).',
            content: {
              'application/json': {
                schema: ref('SubmitReportResponse'),
                example: { ok: true, id: EXAMPLE_ID, redactions: 0 },
              },
            },
          },
          ...problemResponses(base, SUBMIT_ERROR_CODES),
        },
      },
    },
    '/v1/projects': {
      get: {
        operationId: 'listProjects',
        tags: ['Read'],
        summary: 'List your projects',
        description: 'Every project of the account of the API key, oldest first, as a bare array.',
        security: READ_SECURITY,
        responses: {
          '200': {
            description: 'Your projects.',
            content: {
              'application/json': {
                schema: ref('ProjectList'),
                example: [
                  {
                    id: EXAMPLE_PROJECT_ID,
                    name: 'My MCP server',
                    created_at: '2026-11-01T09:00:00Z',
                  },
                ],
              },
            },
          },
          ...problemResponses(base, [
            ...READ_AUTH_ERROR_CODES,
            'internal_error',
            'service_unavailable',
          ]),
        },
      },
    },
    '/v1/dashboard/{projectId}/reports': {
      get: {
        operationId: 'listReports',
        tags: ['Read'],
        summary: 'List reports of a project, with statistics',
        description:
          'Newest first (`created_at`, then `id`, descending). `pagination.total` counts the reports matching every filter; `stats` counts every filter except `outcome`. A project of another account is 404, like an unknown id. An unknown query parameter is refused with 400 `invalid_query` (its `detail` names it and lists the accepted ones) rather than ignored, so a filter this endpoint does not have never answers with unfiltered reports. To read everything, follow `pagination.next_cursor` (null on the last page) with `?cursor=` instead of counting pages: each page starts right after the last report of the one before, so reports arriving meanwhile neither repeat nor skip a report, and a deep page costs what the first does.',
        security: READ_SECURITY,
        parameters: [projectId, ...listReportsQueryParameters()],
        responses: {
          '200': {
            description: 'One page of reports.',
            content: {
              'application/json': {
                schema: ref('ReportList'),
                example: {
                  project: { id: EXAMPLE_PROJECT_ID, name: 'My MCP server' },
                  stats: { total: 1, success: 0, failure: 0, confusing: 1, gave_up: 0, request: 0 },
                  reports: [EXAMPLE_REPORT],
                  pagination: { page: 1, limit: DEFAULT_PAGE_LIMIT, total: 1, next_cursor: null },
                },
              },
            },
          },
          ...problemResponses(base, [
            'invalid_query',
            ...READ_AUTH_ERROR_CODES,
            'project_not_found',
            'internal_error',
            'service_unavailable',
            'read_timeout',
          ]),
        },
      },
    },
    '/v1/dashboard/{projectId}/events': {
      get: {
        operationId: 'streamReportEvents',
        tags: ['Realtime'],
        summary: 'Stream new reports (Server-Sent Events)',
        description:
          'First an `event: ready`, then one `event: report` per new report: `id:` is the report id, `data:` the Report JSON (schema Report). Also `event: issue` when an issue is created, regresses (a resolved issue got a new report), changes status or is merged: `data:` is an IssueEvent (`change`, `issue`, and `into` for a merge); it has no `id:` and is not replayed on resume (GET …/issues has the current state). Reconnect with `Last-Event-ID` to replay what was missed (up to 1,000 reports). Takes no query parameters: any is refused with 400 `invalid_query`. A reader that falls behind by more than the server\'s buffer cap (1 MiB by default) gets a final `event: overflow` whose `data` is `{"last_event_id", "detail"}` and the stream ends: reconnect with that `Last-Event-ID` (EventSource does so by itself) to receive everything after it. Each account may hold a limited number of streams at once (20 by default), and each server instance a limited total (1,000): past either, 429 `too_many_streams` with `Retry-After`.',
        security: READ_SECURITY,
        parameters: [
          projectId,
          {
            name: 'Last-Event-ID',
            in: 'header',
            required: false,
            description: 'Id of the last report received; the reports after it are sent first.',
            schema: { type: 'string', pattern: '^[0-9a-f]{32}$' },
          },
        ],
        responses: {
          '200': {
            description: 'An endless event stream.',
            content: {
              'text/event-stream': {
                schema: {
                  type: 'string',
                  description: 'Events whose `data` is a Report (see components.schemas.Report).',
                },
                example: `event: ready\ndata: {"project_id":"${EXAMPLE_PROJECT_ID}"}\n\nevent: report\nid: ${EXAMPLE_ID}\ndata: ${JSON.stringify(EXAMPLE_REPORT)}\n\n`,
              },
            },
          },
          ...problemResponses(base, [
            'invalid_query',
            ...READ_AUTH_ERROR_CODES,
            'project_not_found',
            'too_many_streams',
            'internal_error',
            'service_unavailable',
            'read_timeout',
          ]),
        },
      },
    },
    ...issuePaths(base, projectId),
    ...resourcePaths(base),
  };
}

/**
 * The OpenAPI 3.1 description of the public API. Schemas come from the protocol's zod schemas
 * (`z.toJSONSchema`); paths, summaries and examples are written here.
 */
export function buildOpenApiDocument(publicUrl: string): JsonSchema {
  const base = publicUrl.replace(/\/+$/, '');
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'Debrief API',
      version: '1.0.0',
      summary: 'Feedback from AI agents about the tools they use.',
      description: `Agents submit reports with POST /v1/reports and a public ingest key; developers read them with a secret API key. Agent instructions: ${base}/skill.md. Every error is RFC 9457 problem details (\`application/problem+json\`) with a stable \`code\`; each code is explained at ${base}/docs#error-<code>. Timestamps are UTC \`YYYY-MM-DDThh:mm:ssZ\`. An unknown path answers 404 \`not_found\`; an unknown query parameter 400 \`invalid_query\`. Any request may also be answered by the HTTP layer, in the same shape: 400 \`bad_request\` (malformed HTTP), 408 \`request_timeout\` (headers or the whole request not received in time; the connection is closed), 431 \`headers_too_large\`, 429 \`rate_limited\` with \`Retry-After\` (too many connections open from one address), and 503 \`service_unavailable\` with \`Retry-After\` while the server shuts down. The instance URL itself (\`GET /\`) answers \`Accept: application/json\` with a JSON index of these resources.`,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: base }],
    tags: [
      { name: 'Reports', description: 'Submitting reports (agents).' },
      { name: 'Read', description: 'Reading reports (developers).' },
      { name: 'Issues', description: 'Reports grouped into the problems behind them; triage.' },
      { name: 'Realtime', description: 'Live report stream.' },
      { name: 'Agent resources', description: 'Documents published for agents.' },
      { name: 'Health', description: 'Probes.' },
    ],
    paths: paths(base),
    components: {
      schemas: { ...componentSchemas(), ...issueComponentSchemas() },
      securitySchemes: {
        IngestKey: {
          type: 'apiKey',
          in: 'header',
          name: 'ingest_key',
          description:
            'The project ingest key (`wk_` + 32 lowercase hex characters) is sent as the `ingest_key` member of the JSON body of POST /v1/reports, NOT as a header: OpenAPI security schemes cannot place a key in a body, so this entry documents the key and POST /v1/reports declares `security: []` with a required `ingest_key` body field. Public by design: it can only submit reports, and can be rotated in the dashboard.',
          'x-debrief-location': 'body',
        },
        ApiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'wk_sk_…',
          description:
            'Secret API key, `Authorization: Bearer wk_sk_…` (created in the dashboard or with `debrief bootstrap`, shown once). Reads data: never embed it in agents, skills or client code. Scopes: `read` (every key) and `triage` (writes to issues and reports), chosen when the key is created.',
        },
        DashboardSession: {
          type: 'apiKey',
          in: 'cookie',
          name: 'debrief_session',
          description:
            'The dashboard session cookie; read endpoints accept it instead of an API key, and triage writes with the `x-csrf-token` header of GET /v1/auth/session.',
        },
      },
    },
  };
}
