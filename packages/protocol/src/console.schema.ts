import { z } from 'zod';
import { API_KEY_SCOPES, ApiKeyScope } from './issue.schema.js';
import { PROJECT_NAME_MAX_LENGTH, Project } from './project.schema.js';
import { pageLimit, parseTimeBound, positiveInt, type TimeBound } from './query.schema.js';
import {
  describeValue,
  hasNoNul,
  LABEL_MAX_LENGTH,
  NUL_CHARACTER_MESSAGE,
  Pagination,
  ReportStats,
  validText,
  WireTimestamp,
} from './report.schema.js';

/**
 * The session-authenticated JSON API of the dashboard (`/v1/auth/*`, `/v1/console/*`). The
 * server validates with these schemas and the dashboard may type its calls with them.
 */

export const PASSWORD_MIN_LENGTH = 8;
/** scrypt hashes any length, but an unbounded password is a cheap way to burn CPU. */
export const PASSWORD_MAX_LENGTH = 1024;

export const Email = z
  .string({ error: 'is required: your email address' })
  .trim()
  .max(254, { error: 'must be at most 254 characters' })
  .pipe(z.email({ error: 'must be an email address such as you@example.com' }));

export const SignupBody = z.object({
  email: Email,
  // validText: a lone surrogate is hashed as U+FFFD, so two different passwords would match.
  // Sign-in keeps accepting anything: a rule change must not lock out older accounts.
  password: validText(
    z
      .string({ error: 'is required' })
      .min(PASSWORD_MIN_LENGTH, { error: `must be at least ${PASSWORD_MIN_LENGTH} characters` })
      .max(PASSWORD_MAX_LENGTH, { error: `must be at most ${PASSWORD_MAX_LENGTH} characters` }),
  ),
  /** The token of an invitation link (`/signup?invite=<token>`); needed unless sign-ups are open. */
  invitation: z
    .string({ error: 'must be the invitation token from the link' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(200, { error: 'must be at most 200 characters' })
    .optional(),
});
export type SignupBody = z.input<typeof SignupBody>;

/** Sign-in checks no password rule: a rule change must not lock out older accounts. */
export const SigninBody = z.object({
  email: z
    .string({ error: 'is required: your email address' })
    .trim()
    .min(1, { error: 'is required' })
    .max(254, { error: 'must be at most 254 characters' }),
  password: z
    .string({ error: 'is required' })
    .min(1, { error: 'is required' })
    .max(PASSWORD_MAX_LENGTH, { error: `must be at most ${PASSWORD_MAX_LENGTH} characters` }),
});
export type SigninBody = z.input<typeof SigninBody>;

/**
 * Who may sign up (`SIGNUPS`). `invite` (the default): the first sign-up creates the operator,
 * every later one needs an invitation. `open`: anyone (throttled per address). `closed`: only
 * with an invitation, even the first (the operator comes from `debrief bootstrap`).
 */
export const SIGNUP_MODES = ['invite', 'open', 'closed'] as const;
export const Signups = z.enum(SIGNUP_MODES);
export type Signups = z.infer<typeof Signups>;

export const Usage = z.object({
  /** UTC calendar month, `YYYY-MM`. */
  month: z.string().regex(/^\d{4}-\d{2}$/),
  used: z.number().int(),
  /** null = unlimited. */
  limit: z.number().int().nullable(),
});
export type Usage = z.infer<typeof Usage>;

export const SessionInfo = z.object({
  /** `operator`: the instance's operator (its first account), who may invite others. */
  account: z.object({ id: z.string(), email: z.string(), operator: z.boolean() }),
  csrf_token: z.string(),
  signups: Signups,
  usage: Usage,
});
export type SessionInfo = z.infer<typeof SessionInfo>;

/**
 * What the sign-in page needs before anyone is signed in. `first_signup`: no account exists
 * yet and a sign-up without an invitation would create the operator.
 */
export const AuthConfig = z.object({
  signups: Signups,
  first_signup: z.boolean(),
  public_url: z.string(),
});
export type AuthConfig = z.infer<typeof AuthConfig>;

/** A project or API key name: trimmed, 1–100 characters. */
export const NameBody = z.object({
  name: validText(
    z
      .string({ error: 'is required: a name of 1 to 100 characters' })
      .trim()
      .min(1, { error: 'must not be empty' })
      .max(PROJECT_NAME_MAX_LENGTH, {
        error: `must be at most ${PROJECT_NAME_MAX_LENGTH} characters`,
      }),
  ),
});
export type NameBody = z.input<typeof NameBody>;

/**
 * Body of `POST /v1/console/api-keys`: a name, and the scopes (default `["read"]`; `read` is
 * implied, so `["triage"]` is a key that reads and triages).
 */
export const CreateApiKeyBody = NameBody.extend({
  scopes: z
    .array(ApiKeyScope, { error: 'must be an array of scopes, e.g. ["read", "triage"]' })
    .optional()
    // `read` is implied; repeats collapse; stored and shown in API_KEY_SCOPES order.
    .transform((scopes) => API_KEY_SCOPES.filter((s) => s === 'read' || scopes?.includes(s))),
});
export type CreateApiKeyBody = z.input<typeof CreateApiKeyBody>;

export const ConsoleProject = Project.extend({
  last_7_days: ReportStats,
  /**
   * The project the instance keeps for feedback about itself (its /skill.md sends agents' reports
   * about Debrief there), owned by the operator; absent or false for every other project.
   */
  instance_feedback: z.boolean().optional(),
});
export type ConsoleProject = z.infer<typeof ConsoleProject>;
export const ConsoleProjectList = z.array(ConsoleProject);

export const CreatedProject = z.object({ project: Project, ingest_key: z.string() });
export type CreatedProject = z.infer<typeof CreatedProject>;

export const IngestKeyResponse = z.object({ ingest_key: z.string() });

export const ApiKeyInfo = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  created_at: WireTimestamp,
  last_used_at: WireTimestamp.nullable(),
  revoked_at: WireTimestamp.nullable(),
  /** What the key may do: `read` always; `triage` also writes to issues. */
  scopes: z.array(ApiKeyScope).default(['read']),
});
export type ApiKeyInfo = z.infer<typeof ApiKeyInfo>;
export const ApiKeyList = z.array(ApiKeyInfo);

export const CreatedApiKey = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  created_at: WireTimestamp,
  scopes: z.array(ApiKeyScope).default(['read']),
  /** The secret, shown once. */
  key: z.string(),
});
export type CreatedApiKey = z.infer<typeof CreatedApiKey>;

const optionalBound = z
  .string()
  .transform((text, ctx): TimeBound => {
    const bound = parseTimeBound(text);
    if (!bound) {
      ctx.addIssue({
        code: 'custom',
        message: `must be an ISO 8601 date (2026-11-21) or date-time (2026-11-21T14:30:00Z); received ${describeValue(text)}`,
      });
      return z.NEVER;
    }
    return bound;
  })
  .optional();

const label = validText(
  z.string().max(LABEL_MAX_LENGTH, { error: `must be at most ${LABEL_MAX_LENGTH} characters` }),
).optional();

/** At most this many days in one timeseries: a year and a day (leap years). */
export const TIMESERIES_MAX_DAYS = 366;
export const TIMESERIES_DEFAULT_DAYS = 14;

const statsFilters = { from: optionalBound, to: optionalBound, tool_name: label, source: label };
const fromBeforeTo: [
  (q: { from?: TimeBound; to?: TimeBound }) => boolean,
  { error: string; path: string[] },
] = [
  (q) => !q.from || !q.to || q.from.start.getTime() < q.to.end.getTime(),
  { error: 'must not be after to', path: ['from'] },
];

export const StatsQuery = z.object(statsFilters).refine(...fromBeforeTo);
export type StatsQuery = z.output<typeof StatsQuery>;

/**
 * `GET /v1/console/projects/{id}/tools`: the stats filters, and `page`/`limit` (pageLimit): a
 * project may hold up to a thousand tools.
 */
export const ToolStatsQuery = z
  .object({
    ...statsFilters,
    page: positiveInt('page').optional().default(1),
    limit: pageLimit(),
  })
  .refine(...fromBeforeTo);
export type ToolStatsQuery = z.output<typeof ToolStatsQuery>;

export const OutcomeCounts = ReportStats.omit({ total: true });

export const Timeseries = z.object({
  days: z.array(OutcomeCounts.extend({ date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/) })),
});
export type Timeseries = z.infer<typeof Timeseries>;

export const ToolStats = z.object({
  tools: z.array(
    ReportStats.extend({
      /** null = reports sent without a tool name. */
      tool_name: z.string().nullable(),
      /**
       * success / (success + failure + confusing + gave_up): the share of the tool's uses that
       * worked. `request` (a wish, not a use) is left out; null when no report describes a use.
       */
      success_rate: z.number().min(0).max(1).nullable(),
    }),
  ),
  /** `total` = tools under the filters; the page holds at most `limit` of them. */
  pagination: Pagination,
});
export type ToolStats = z.infer<typeof ToolStats>;

/** The source filter lists at most this many sources, the busiest first. */
export const SOURCES_LIMIT = 50;

export const SourceStats = z.object({
  /** Sources with their report counts, busiest first (then by name); reports without one are left out. */
  sources: z.array(z.object({ source: z.string(), total: z.number().int().nonnegative() })),
  /** True when the project has more sources than the list holds. */
  truncated: z.boolean(),
});
export type SourceStats = z.infer<typeof SourceStats>;

/**
 * Query of `GET /v1/console/projects/:id/integrate`. `source` is the name of the skill the
 * block is pasted into; it becomes the block's fixed `"source"`, so reports sent through it are
 * told apart from other routes'. Same limits as a report's `source`; empty means none.
 */
export const IntegrateQuery = z.object({
  source: z
    .string()
    .trim()
    .max(LABEL_MAX_LENGTH, { error: `must be at most ${LABEL_MAX_LENGTH} characters` })
    .refine(hasNoNul, { error: NUL_CHARACTER_MESSAGE })
    .optional()
    .transform((value) => value || undefined),
});
export type IntegrateQuery = z.output<typeof IntegrateQuery>;

/**
 * A project's redaction option (`GET`/`PATCH /v1/console/projects/{id}/redaction`). Credentials
 * are always redacted; this adds email addresses and phone numbers.
 */
export const RedactionSettings = z.object({
  redact_personal_data: z.boolean({ error: 'is required: true or false' }),
});
export type RedactionSettings = z.infer<typeof RedactionSettings>;

export const IntegrateInfo = z.object({
  public_url: z.string(),
  ingest_key: z.string(),
  skill_block: z.string(),
  mcp_snippet: z.string(),
  /** The server instructions `@debrief/mcp` exports, as agents will read them. */
  mcp_instructions: z.string(),
  express_snippet: z.string(),
  /** JSON text of an OpenAPI path item for the Express route. */
  openapi_fragment: z.string(),
});
export type IntegrateInfo = z.infer<typeof IntegrateInfo>;
