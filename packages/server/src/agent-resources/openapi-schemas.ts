import {
  DEFAULT_PAGE_LIMIT,
  DETAILS_MAX_LENGTH,
  LABEL_MAX_LENGTH,
  ListReportsQuery,
  MAX_PAGE_LIMIT,
  METADATA_MAX_BYTES,
  METADATA_MAX_KEYS,
  ProblemDetails,
  Project,
  ProjectList,
  Report,
  ReportList,
  ServiceIndex,
  SubmitReportBody,
  SubmitReportResponse,
} from '@debrief/protocol';
import { z } from 'zod';

/** A JSON Schema object as it appears in the OpenAPI document. */
export type JsonSchema = Record<string, unknown>;

/** Health answers: small enough to live here rather than in the protocol. */
export const HealthResponse = z.object({ ok: z.literal(true) });
export const ReadyResponse = z.object({
  ok: z.literal(true),
  database: z.enum(['sqlite', 'postgres']),
});

const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * zod → JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1). Request schemas use
 * `io: "input"`: what a client sends, before the transforms (trimming, defaults, date parsing)
 * that cannot be expressed in JSON Schema. The safe-integer bounds zod adds to `.int()` say
 * nothing a reader needs, so they are dropped.
 */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
    override: (ctx) => {
      const s = ctx.jsonSchema as JsonSchema;
      if (s.type === 'integer' && s.minimum === -SAFE) delete s.minimum;
      if (s.type === 'integer' && s.maximum === SAFE) delete s.maximum;
    },
  }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** Adds a description to each named property of an object schema (hand-written metadata). */
export function describeProperties(schema: JsonSchema, descriptions: Record<string, string>) {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  for (const [name, description] of Object.entries(descriptions)) {
    const property = properties?.[name];
    if (property) property.description = description;
  }
  return schema;
}

export const FIELD_DESCRIPTIONS = {
  ingest_key:
    'The project ingest key, `wk_` + 32 lowercase hex characters. Public by design: it can only submit reports. Checked before every other field.',
  outcome: 'What happened, exactly one of the five outcomes.',
  details: `What happened, in plain words (trimmed; 1 to ${DETAILS_MAX_LENGTH.toLocaleString('en-US')} characters). No secrets or personal data.`,
  tool_name: `The tool the report is about, at most ${LABEL_MAX_LENGTH} characters. Empty or null means absent. A fixed name per tool: a project holds a limited number of distinct tool names (400 \`too_many_tool_names\` past it).`,
  source: `Who is reporting, e.g. the agent or client name; at most ${LABEL_MAX_LENGTH} characters. Empty or null means absent. A project holds a limited number of distinct sources (400 \`too_many_sources\` past it).`,
  metadata: `Optional flat object of string, number or boolean values (at most ${METADATA_MAX_KEYS} keys, ${METADATA_MAX_BYTES} bytes as JSON), e.g. client name and version, model, session id. The keys \`__proto__\`, \`constructor\` and \`prototype\` are refused. Every text of a report must be valid Unicode without NUL: a lone surrogate escape such as \`\\ud800\` is a 400.`,
  created_at: 'When the report was stored, UTC, whole seconds.',
  redactions:
    'How many credentials (and, where the project asks, email addresses and phone numbers) were replaced by `[REDACTED:<kind>]` before the report was stored; 0 when none.',
  id: '32 lowercase hex characters; report ids are UUIDv7 without dashes, so they sort by time.',
  issue_id:
    'The issue the report belongs to (32 hex). null only until the background grouper has placed it, a moment after the 201.',
  issue_reason:
    'Why the report joined its issue: the grouping\'s reason (e.g. "same tool, 0.82 similar to …"), or that a developer moved it.',
};

export const QUERY_DESCRIPTIONS: Record<string, string> = {
  outcome: 'Only reports with this outcome. `stats` ignores this filter (facet counts).',
  tool_name: 'Only reports about this tool (exact match).',
  source: 'Only reports from this source (exact match).',
  from: 'Inclusive lower bound: an ISO 8601 date (`2026-11-21`) or date-time (`2026-11-21T14:30:00Z`; offset honoured, UTC when absent).',
  to: 'Inclusive upper bound, same formats as `from`; a date-only `to` covers that whole day.',
  issue_id: 'Only the reports of this issue (32 lowercase hex characters).',
  page: 'Page number, 1 or more (default 1). A page past the end returns an empty `reports` array. Not together with `cursor`.',
  cursor:
    'Extension: `pagination.next_cursor` of the previous page, passed as it came (opaque), to get the page after it. Send the same filters as the request that returned it (`limit` may change); a cursor made for other filters or another project, or not made by this endpoint, is refused with 400 `invalid_query` naming `cursor`. Not together with `page`.',
  limit: `Reports per page, 1 or more (default ${DEFAULT_PAGE_LIMIT}); values above ${MAX_PAGE_LIMIT} are clamped to ${MAX_PAGE_LIMIT}.`,
};

/** `components.schemas`: every body of the public API, generated from the protocol. */
export function componentSchemas(): Record<string, JsonSchema> {
  return {
    SubmitReportBody: describeProperties(
      toJsonSchema(SubmitReportBody, 'input'),
      FIELD_DESCRIPTIONS,
    ),
    SubmitReportResponse: describeProperties(
      toJsonSchema(SubmitReportResponse, 'output'),
      FIELD_DESCRIPTIONS,
    ),
    Report: describeProperties(toJsonSchema(Report, 'output'), FIELD_DESCRIPTIONS),
    ReportList: toJsonSchema(ReportList, 'output'),
    Project: toJsonSchema(Project, 'output'),
    ProjectList: toJsonSchema(ProjectList, 'output'),
    ProblemDetails: describeProperties(toJsonSchema(ProblemDetails, 'output'), {
      type: 'URI of the error in the API reference: `<PUBLIC_URL>/docs#error-<code>`.',
      title: 'Short, constant per code.',
      status: 'The HTTP status code.',
      detail: 'Written for an agent: what was wrong and how to fix it.',
      code: 'Stable snake_case error code; branch on this.',
      errors: 'One entry per invalid field (validation errors only).',
    }),
    HealthResponse: toJsonSchema(HealthResponse, 'output'),
    ReadyResponse: toJsonSchema(ReadyResponse, 'output'),
    ServiceIndex: toJsonSchema(ServiceIndex, 'output'),
  };
}

/** Query parameters of GET /v1/dashboard/{projectId}/reports, from the protocol's query schema. */
export function listReportsQueryParameters(): JsonSchema[] {
  const schema = toJsonSchema(ListReportsQuery, 'input');
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => {
    const { description: _zodName, ...rest } = property;
    return {
      name,
      in: 'query',
      required: required.has(name),
      description: QUERY_DESCRIPTIONS[name] ?? '',
      schema: rest,
    };
  });
}
