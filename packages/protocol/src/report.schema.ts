import { z } from 'zod';
import { OUTCOMES } from './outcomes.js';
import { isWellFormedText, utf8Length } from './utf8.js';

export const DETAILS_MAX_LENGTH = 10_000;
export const LABEL_MAX_LENGTH = 200;
export const METADATA_MAX_KEYS = 20;
export const METADATA_MAX_BYTES = 2048;
export const BODY_MAX_BYTES = 64 * 1024;

/** Renders a received value for an error message: short, JSON-ish, never the whole input. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    // Nesting deep enough to overflow the stack (found by the fuzz test): name it instead.
    text = Array.isArray(value) ? 'a deeply nested array' : 'a deeply nested value';
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * PostgreSQL text cannot hold U+0000 (SQLite can): refusing it everywhere keeps both dialects
 * answering the same, with a 400 instead of a database error.
 */
export const NUL_CHARACTER_MESSAGE = 'must not contain NUL characters (\\u0000)';
export const hasNoNul = (value: string) => !value.includes('\u0000');

export const LONE_SURROGATE_MESSAGE =
  'must be valid Unicode: it contains a lone surrogate (an unpaired \\ud800–\\udfff escape). Escape a character outside the BMP as its full pair, or send it as UTF-8';

/**
 * The checks every free text of the protocol shares (reports, labels, names, metadata), so a
 * value is refused the same way on both dialects rather than stored differently by each.
 */
export function validText<T extends z.ZodString>(schema: T): T {
  return schema
    .refine(hasNoNul, { error: NUL_CHARACTER_MESSAGE })
    .refine(isWellFormedText, { error: LONE_SURROGATE_MESSAGE });
}

/**
 * Metadata keys refused because code that reads metadata into a plain object would change its
 * prototype instead of storing a value (`JSON.parse` makes `__proto__` an own key; a record
 * parser skips it, which silently stored `{}`).
 */
export const RESERVED_METADATA_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype'];
export const RESERVED_METADATA_KEY_MESSAGE =
  'is a reserved key name: __proto__, constructor and prototype are refused in metadata; rename it';

export const Outcome = z.enum(OUTCOMES, {
  error: (issue) =>
    issue.input === undefined
      ? `is required: one of ${OUTCOMES.join(', ')}`
      : `must be one of ${OUTCOMES.join(', ')} (received ${describeValue(issue.input)})`,
});
export type Outcome = z.infer<typeof Outcome>;

const requiredString = (what: string) =>
  z.string({
    error: (issue) =>
      issue.input === undefined
        ? `is required: ${what}`
        : `must be a string (received ${describeValue(issue.input)})`,
  });

/** Optional label: trimmed; an empty string or null means absent. */
const optionalLabel = validText(
  z
    .string({ error: (issue) => `must be a string (received ${describeValue(issue.input)})` })
    .trim()
    .max(LABEL_MAX_LENGTH, { error: `must be at most ${LABEL_MAX_LENGTH} characters` }),
)
  .nullish()
  .transform((value) => (value ? value : null));

const MetadataValue = z.union([validText(z.string()), z.number(), z.boolean()], {
  error: (issue) =>
    `must be a string, number or boolean; nested objects, arrays and null are not allowed (received ${describeValue(issue.input)})`,
});

const FlatMetadata = z
  .record(validText(z.string()), MetadataValue, {
    error: (issue) =>
      issue.code === 'invalid_key'
        ? `key ${issue.issues[0]?.message ?? 'is invalid'}`
        : `must be a flat JSON object of string, number or boolean values (received ${describeValue(issue.input)})`,
  })
  .refine((value) => Object.keys(value).length <= METADATA_MAX_KEYS, {
    error: `must have at most ${METADATA_MAX_KEYS} keys`,
  })
  .refine((value) => utf8Length(JSON.stringify(value)) <= METADATA_MAX_BYTES, {
    error: `must be at most ${METADATA_MAX_BYTES} bytes when serialized as JSON`,
  })
  // What JSON Schema can say of the refinements (the byte limit it cannot).
  .meta({ maxProperties: METADATA_MAX_KEYS });

/** Reserved keys are checked on the raw object: the record parser never shows `__proto__`. */
export const ReportMetadata = z.preprocess<
  unknown,
  typeof FlatMetadata,
  z.input<typeof FlatMetadata>
>((value, ctx) => {
  if (typeof value === 'object' && value !== null) {
    for (const key of RESERVED_METADATA_KEYS) {
      if (Object.hasOwn(value, key))
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: RESERVED_METADATA_KEY_MESSAGE,
          input: key,
        });
    }
  }
  return value;
}, FlatMetadata);
export type ReportMetadata = z.infer<typeof ReportMetadata>;

/**
 * What an agent says about a tool: the report fields without the key. The MCP tool and the
 * Express router use this same schema, so validation and messages match everywhere.
 */
export const ReportInput = z.object({
  outcome: Outcome,
  details: validText(
    requiredString('what happened, in plain words')
      .trim()
      .min(1, { error: 'must not be empty: say what happened, in plain words' })
      .max(DETAILS_MAX_LENGTH, {
        error: `must be at most ${DETAILS_MAX_LENGTH} characters; shorten it`,
      }),
  ),
  tool_name: optionalLabel,
  source: optionalLabel,
  metadata: ReportMetadata.nullish().transform((value) => value ?? null),
});
export type ReportInput = z.input<typeof ReportInput>;
export type ValidReportInput = z.output<typeof ReportInput>;

/** `POST /v1/reports` body. Unknown top-level fields are ignored (zod strips them). */
export const SubmitReportBody = ReportInput.extend({
  ingest_key: requiredString('your project ingest key, wk_ followed by 32 hex characters'),
});
export type SubmitReportBody = z.input<typeof SubmitReportBody>;

/**
 * How many credentials (and, where the project asks, email addresses and phone numbers) were
 * replaced by `[REDACTED:<kind>]` before the report was stored. Additive: a server that
 * predates it sent none, read as 0.
 */
export const Redactions = z.number().int().min(0).default(0);

/** The longest `agent_note` a developer can leave on an issue for the agents that report it. */
export const AGENT_NOTE_MAX_LENGTH = 1_000;

/**
 * What the developer already knows about the problem a report describes: present on the submit
 * answer only when the report joined an issue that has an agent note, or is resolved or ignored.
 * `status` is the issue's status as the developer set it; `agent_note` their words to agents.
 * Nothing else about a project is ever told to an ingest key.
 */
export const SubmitReportIssue = z.object({
  id: z.string().regex(/^[0-9a-f]{32}$/),
  status: z.enum(['open', 'resolved', 'ignored']),
  agent_note: z.string().max(AGENT_NOTE_MAX_LENGTH).optional(),
});
export type SubmitReportIssue = z.infer<typeof SubmitReportIssue>;

export const SubmitReportResponse = z.object({
  ok: z.literal(true),
  id: z.string().regex(/^[0-9a-f]{32}$/),
  redactions: Redactions,
  /** Additive: absent when nothing is known, or the answer was not found within its bounded wait. */
  issue: SubmitReportIssue.optional(),
});
export type SubmitReportResponse = z.infer<typeof SubmitReportResponse>;

/** `created_at` on the wire: UTC, whole seconds. */
export const WireTimestamp = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);

export const Report = z.object({
  id: z.string().regex(/^[0-9a-f]{32}$/),
  outcome: z.enum(OUTCOMES),
  tool_name: z.string().nullable(),
  source: z.string().nullable(),
  details: z.string(),
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).nullable(),
  created_at: WireTimestamp,
  redactions: Redactions,
  /**
   * The issue the report belongs to; null only until the background grouper has
   * placed it, a moment after its 201. Additive: a server that predates issues sent none.
   */
  issue_id: z
    .string()
    .regex(/^[0-9a-f]{32}$/)
    .nullable()
    .default(null),
  /** Why it joined that issue ("same tool, 0.82 similar to …", "moved by a developer"). */
  issue_reason: z.string().nullable().default(null),
});
export type Report = z.infer<typeof Report>;

export const ReportStats = z.object({
  total: z.number().int(),
  success: z.number().int(),
  failure: z.number().int(),
  confusing: z.number().int(),
  gave_up: z.number().int(),
  request: z.number().int(),
});
export type ReportStats = z.infer<typeof ReportStats>;

export const Pagination = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
});

/**
 * The report list's pagination. Extension: `next_cursor`, an opaque token for the page after
 * this one (pass it as `cursor`), or null when this page is the last.
 */
export const ReportPagination = Pagination.extend({
  next_cursor: z
    .string()
    .nullable()
    .describe(
      'Extension: pass as `cursor` (with the same filters) for the page after this one; null when this page is the last.',
    ),
});

export const ReportList = z.object({
  project: z.object({ id: z.string(), name: z.string() }),
  stats: ReportStats,
  reports: z.array(Report),
  pagination: ReportPagination,
});
export type ReportList = z.infer<typeof ReportList>;

export function formatWireTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
