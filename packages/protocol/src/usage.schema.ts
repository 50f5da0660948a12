import { z } from 'zod';
import { pageLimit, positiveInt, TimeBoundParam } from './query.schema.js';
import { describeValue, LABEL_MAX_LENGTH, Pagination, validText } from './report.schema.js';

/**
 * Call counts (`POST /v1/usage`) and the rates read from them (`GET /v1/dashboard/{projectId}/tools`).
 * A host (the MCP add-on, the Express router) counts its tools' calls and errors per UTC minute
 * and sends each minute's counts once, or again: a resend of a window replaces what that
 * sender said about it, so a retry after a lost answer never counts twice.
 */

/** At most this many tools in one window. */
export const USAGE_TOOLS_MAX = 200;
/** At most this many calls (or errors) of one tool in one window. */
export const USAGE_COUNT_MAX = 1_000_000_000;
/** A window older than this many days is refused: its counts are settled. */
export const USAGE_WINDOW_MAX_AGE_DAYS = 7;

const label = (what: string) =>
  validText(
    z
      .string({ error: `must be a string: ${what}` })
      .min(1, { error: 'must not be empty' })
      .max(LABEL_MAX_LENGTH, { error: `must be at most ${LABEL_MAX_LENGTH} characters` }),
  );

const TOOL_NAME = label('the tool name');

const count = (what: string) =>
  z
    .number({ error: `must be a whole number of ${what} (0 to ${USAGE_COUNT_MAX})` })
    .int({ error: `must be a whole number of ${what}` })
    .min(0, { error: 'must be 0 or more' })
    .max(USAGE_COUNT_MAX, { error: `must be at most ${USAGE_COUNT_MAX}` });

/** A UTC minute: `2026-11-28T14:05:00Z` (a `.000` fraction is accepted). */
const WINDOW_START = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00(\.0{1,3})?Z$/;

export const ToolCallCounts = z
  .object({
    calls: count('calls'),
    errors: count('errors'),
  })
  .refine((c) => c.errors <= c.calls, { error: 'must not be more than calls', path: ['errors'] });

export const UsageBody = z.object({
  ingest_key: z.string(),
  window_start: z
    .string({ error: 'must be the UTC minute the counts start at, such as 2026-11-28T14:05:00Z' })
    .regex(WINDOW_START, {
      error: (i) =>
        `must be a UTC minute such as 2026-11-28T14:05:00Z (seconds 00, Z); received ${describeValue(i.input)}`,
    })
    .refine((s) => !Number.isNaN(Date.parse(s)), { error: 'is not a real date and time' }),
  /** Which sender (process) counted: several hosts of one project each keep their own counts. */
  instance: label('an id of the sending process').optional(),
  /** The version of the server whose tools were called, to compare before and after a release. */
  server_version: label('the version of your server').optional(),
  tools: z
    .record(z.string(), ToolCallCounts, {
      error: 'must be an object of tool name → {"calls": n, "errors": n}',
    })
    .superRefine((tools, ctx) => {
      const names = Object.keys(tools);
      if (names.length > USAGE_TOOLS_MAX) {
        ctx.addIssue({
          code: 'custom',
          message: `must hold at most ${USAGE_TOOLS_MAX} tools per window (received ${names.length}): send the rest in another request with another instance`,
        });
      }
      for (const name of names) {
        const problem = TOOL_NAME.safeParse(name);
        if (!problem.success) {
          ctx.addIssue({
            code: 'custom',
            message: `tool names must be 1 to ${LABEL_MAX_LENGTH} characters of valid text; ${describeValue(name.length > 40 ? `${name.slice(0, 40)}…` : name)} ${problem.error.issues[0]?.message ?? 'is not'}`,
          });
          return;
        }
      }
    }),
});
export type UsageBody = z.input<typeof UsageBody>;

export const UsageResponse = z.object({
  ok: z.literal(true),
  /** The window as stored (`YYYY-MM-DDThh:mm:00Z`). */
  window_start: z.string(),
  /** How many tools' counts the window now holds from this sender. */
  tools: z.number().int().nonnegative(),
});
export type UsageResponse = z.infer<typeof UsageResponse>;

/** Query of `GET /v1/dashboard/{projectId}/tools`. */
export const ToolRatesQuery = z
  .object({
    from: TimeBoundParam.optional(),
    to: TimeBoundParam.optional(),
    tool_name: validText(
      z.string().max(LABEL_MAX_LENGTH, { error: `must be at most ${LABEL_MAX_LENGTH} characters` }),
    ).optional(),
    by: z.enum(['server_version'], { error: 'must be server_version (or left out)' }).optional(),
    page: positiveInt('page').optional().default(1),
    limit: pageLimit(),
  })
  .refine((q) => !q.from || !q.to || q.from.start.getTime() < q.to.end.getTime(), {
    error: 'must not be after to',
    path: ['from'],
  })
  .refine((q) => q.by === undefined || q.tool_name !== undefined, {
    error: 'needs tool_name: versions are compared for one tool at a time',
    path: ['by'],
  });
export type ToolRatesQuery = z.output<typeof ToolRatesQuery>;

const rates = {
  /** Calls counted by the hosts; null when no counts arrived for this tool in the range. */
  calls: z.number().int().nonnegative().nullable(),
  errors: z.number().int().nonnegative().nullable(),
  /** errors / calls; null without calls. */
  error_rate: z.number().min(0).max(1).nullable(),
  /** Reports about the tool in the range (every outcome). */
  reports: z.number().int().nonnegative(),
  /** reports × 1000 / calls; null without calls. */
  reports_per_1000_calls: z.number().nonnegative().nullable(),
};

export const ToolRate = z.object({
  /** null = reports sent without a tool name. */
  tool_name: z.string().nullable(),
  ...rates,
});
export type ToolRate = z.infer<typeof ToolRate>;

export const VersionRate = z.object({
  /** null = counts and reports that named no version. */
  server_version: z.string().nullable(),
  ...rates,
  /** The first and last hour (counts) or report seen with this version in the range. */
  first_seen: z.string().nullable(),
  last_seen: z.string().nullable(),
});
export type VersionRate = z.infer<typeof VersionRate>;

export const ToolRates = z.object({
  project: z.object({ id: z.string(), name: z.string() }),
  /** Busiest first: by calls (tools without counts last), then reports, then name. */
  tools: z.array(ToolRate),
  /** With `by=server_version`: the tool's figures per version, the earliest seen first. */
  versions: z.array(VersionRate).optional(),
  pagination: Pagination,
});
export type ToolRates = z.infer<typeof ToolRates>;

/**
 * Forwarding secrets (`/v1/console/projects/{id}/forwarding-secrets`, the dashboard's Keys page):
 * a host app that forwards reports for many agents sends one in `Debrief-Forwarding-Secret`, and
 * the agent's address in `Debrief-Forwarded-For`, so the per-address limits count each agent.
 */
export const CreateForwardingSecretBody = z.object({
  name: validText(
    z
      .string({ error: 'is required: say which host will use it, e.g. "docs site"' })
      .trim()
      .min(1, { error: 'must not be empty' })
      .max(100, { error: 'must be at most 100 characters' }),
  ),
});
export type CreateForwardingSecretBody = z.input<typeof CreateForwardingSecretBody>;

export const ForwardingSecretInfo = z.object({
  id: z.string(),
  name: z.string(),
  /** The secret's first characters, to tell them apart: `wf_3a9c4e`. */
  prefix: z.string(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
});
export type ForwardingSecretInfo = z.infer<typeof ForwardingSecretInfo>;

export const ForwardingSecretList = z.object({ secrets: z.array(ForwardingSecretInfo) });
export type ForwardingSecretList = z.infer<typeof ForwardingSecretList>;

/** The answer to a creation: the only time the secret itself is shown. */
export const CreatedForwardingSecret = ForwardingSecretInfo.extend({ secret: z.string() });
export type CreatedForwardingSecret = z.infer<typeof CreatedForwardingSecret>;
