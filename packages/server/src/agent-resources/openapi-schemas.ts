import {
  CreateDestinationBody,
  CreateGroupingRuleBody,
  CreateMuteBody,
  DETAILS_MAX_LENGTH,
  DeletedGroupingRule,
  Delivery,
  DeliveryList,
  Destination,
  DestinationList,
  GroupingRule,
  GroupingRuleList,
  IssueActivityList,
  IssueDetail,
  IssueList,
  LABEL_MAX_LENGTH,
  METADATA_MAX_BYTES,
  METADATA_MAX_KEYS,
  MergedIssueList,
  MergeIssueBody,
  MovedReport,
  MoveReportBody,
  Mute,
  MuteList,
  NotificationPayload,
  ProblemDetails,
  Project,
  ProjectList,
  RejectedSimilar,
  RejectSimilarBody,
  Report,
  ReportList,
  ServiceIndex,
  SimilarIssues,
  SubmitReportBody,
  SubmitReportResponse,
  TimeBoundParam,
  ToolRates,
  UnmergedIssue,
  UnmergeIssueBody,
  UpdateDestinationBody,
  UpdateGroupingRuleBody,
  UpdateIssueBody,
  UsageBody,
  UsageResponse,
} from '@debrief/protocol';
import { z } from 'zod';

import type { JsonSchema } from '../http/route-contract.js';

export type { JsonSchema };

/** Health answers: small enough to live here rather than in the protocol. */
export const HealthResponse = z.object({ ok: z.literal(true) });
export const ReadyResponse = z.object({
  ok: z.literal(true),
  database: z.enum(['sqlite', 'postgres']),
});

const SAFE = Number.MAX_SAFE_INTEGER;

type OverrideContext = { zodSchema: unknown; jsonSchema: unknown };

/**
 * What JSON Schema says of a value on the wire where zod's own rendering says less or other:
 * the safe-integer bounds zod adds to `.int()` say nothing a reader needs; a positive integer
 * of a query string (`positiveInt`, text matched by `^\\d+$` then read as a number) is an integer
 * of 1 or more, so a generated client passes numbers; a `from`/`to` bound is a date or a
 * date-time (the server also reads a few lenient spellings of them, see `parseTimeBound`).
 */
function wireForm(ctx: OverrideContext): void {
  const s = ctx.jsonSchema as JsonSchema;
  if (s.type === 'integer' && s.minimum === -SAFE) delete s.minimum;
  if (s.type === 'integer' && s.maximum === SAFE) delete s.maximum;
  if (s.type === 'string' && s.pattern === POSITIVE_INT_PATTERN) {
    delete s.pattern;
    s.type = 'integer';
    s.minimum = 1;
  }
  if (ctx.zodSchema === TimeBoundParam) {
    s.anyOf = [{ format: 'date' }, { format: 'date-time' }];
  }
}

const POSITIVE_INT_PATTERN = '^\\d+$';

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
    override: wireForm,
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
  issue:
    "Present only when the report joined an issue the developer has told agents about: one with an `agent_note`, or one `resolved` or `ignored`. `id`: the issue; `status`: as the developer set it (`resolved`: they believe it fixed, e.g. in a newer version; `ignored`: not planned); `agent_note`: their words to you (a workaround, an upgrade), at most 1,000 characters. Absent otherwise, or when the report's issue was not known within the server's bounded wait (200 ms by default): the plain `{ok, id}` stays a complete answer. Never names another issue than the one this report joined.",
  issue_reason:
    'Why the report joined its issue: the grouping\'s reason (e.g. "same tool, 0.82 similar to …"), `rule: <name>` when a grouping rule placed it, or that a developer moved it.',
};

/** A schema of the document's components, generated from the protocol: JSON Schema by name. */
const OUTPUT_COMPONENTS: Record<string, z.ZodType> = {
  SubmitReportResponse,
  Report,
  ReportList,
  Project,
  ProjectList,
  ProblemDetails,
  HealthResponse,
  ReadyResponse,
  ServiceIndex,
  IssueList,
  IssueDetail,
  IssueActivityList,
  MovedReport,
  SimilarIssues,
  RejectedSimilar,
  MergedIssueList,
  UnmergedIssue,
  GroupingRule,
  GroupingRuleList,
  DeletedGroupingRule,
  UsageResponse,
  ToolRates,
  Destination,
  DestinationList,
  Delivery,
  DeliveryList,
  NotificationPayload,
  Mute,
  MuteList,
};
const INPUT_COMPONENTS: Record<string, z.ZodType> = {
  SubmitReportBody,
  UpdateIssueBody,
  MergeIssueBody,
  MoveReportBody,
  RejectSimilarBody,
  UnmergeIssueBody,
  CreateGroupingRuleBody,
  UpdateGroupingRuleBody,
  UsageBody,
  CreateDestinationBody,
  UpdateDestinationBody,
  CreateMuteBody,
};

const PROPERTY_DESCRIPTIONS: Record<string, Record<string, string>> = {
  SubmitReportBody: FIELD_DESCRIPTIONS,
  SubmitReportResponse: FIELD_DESCRIPTIONS,
  Report: FIELD_DESCRIPTIONS,
  UsageBody: {
    ingest_key: FIELD_DESCRIPTIONS.ingest_key,
    window_start:
      'The UTC minute the counts start at (`2026-11-28T14:05:00Z`): the counts of the calls that started in that minute.',
    instance:
      'Which sending process counted (a random id made at its start): each keeps its own counts of a minute. Absent: one sender.',
    server_version:
      'The version of the server whose tools were called, to compare error rates before and after a release.',
    tools: 'Tool name → `{"calls", "errors"}` in that minute; `errors` at most `calls`.',
  },
  ProblemDetails: {
    type: 'URI of the error in the API reference: `<PUBLIC_URL>/docs#error-<code>`.',
    title: 'Short, constant per code.',
    status: 'The HTTP status code.',
    detail: 'Written for an agent: what was wrong and how to fix it.',
    code: 'Stable snake_case error code; branch on this.',
    errors: 'One entry per invalid field (validation errors only).',
  },
};

/**
 * The document's named schemas. A schema inside another one that has a name is referenced
 * (`ReportList.reports` → `Report`), never restated. `schemaOf` gives a body's `$ref` when it is
 * a component, its JSON Schema otherwise.
 */
export class ComponentSchemas {
  readonly schemas: Record<string, JsonSchema> = {};
  private readonly names = new Map<z.ZodType, string>();

  constructor() {
    for (const [io, named] of [
      ['output', OUTPUT_COMPONENTS],
      ['input', INPUT_COMPONENTS],
    ] as const) {
      const registry = z.registry<{ id: string }>();
      for (const [name, schema] of Object.entries(named)) {
        registry.add(schema, { id: name });
        this.names.set(schema, name);
      }
      const generated = z.toJSONSchema(registry, {
        io,
        target: 'draft-2020-12',
        unrepresentable: 'any',
        uri: (id) => `#/components/schemas/${id}`,
        override: wireForm,
      }).schemas as Record<string, JsonSchema>;
      for (const [name, schema] of Object.entries(generated)) {
        delete schema.$schema;
        delete schema.$id;
        this.schemas[name] = describeProperties(schema, PROPERTY_DESCRIPTIONS[name] ?? {});
      }
    }
  }

  schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const name = this.names.get(schema);
    return name ? { $ref: `#/components/schemas/${name}` } : toJsonSchema(schema, io);
  }
}
