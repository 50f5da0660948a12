import { z } from 'zod';
import { OUTCOMES } from './outcomes.js';
import { fromNotAfterTo, pageLimit, positiveInt, TimeBoundParam } from './query.schema.js';
import {
  AGENT_NOTE_MAX_LENGTH,
  describeValue,
  hasNoNul,
  LABEL_MAX_LENGTH,
  NUL_CHARACTER_MESSAGE,
  Outcome,
  Pagination,
  validText,
  WireTimestamp,
} from './report.schema.js';

/**
 * Issues: every report belongs to one, the problem (or feature request) behind it.
 * A developer triages them: `open` → `resolved` (a new report reopens it and marks it
 * regressed) or `ignored` (stays quiet whatever arrives).
 */
export const ISSUE_STATUSES = ['open', 'resolved', 'ignored'] as const;
export const IssueStatus = z.enum(ISSUE_STATUSES, {
  error: (i) => `must be one of ${ISSUE_STATUSES.join(', ')} (received ${describeValue(i.input)})`,
});
export type IssueStatus = z.infer<typeof IssueStatus>;

export const Id32 = z.string().regex(/^[0-9a-f]{32}$/, {
  error: (i) => `must be an id of 32 lowercase hex characters (received ${describeValue(i.input)})`,
});

/**
 * Scopes of an API key. `read`: every GET of the read API. `triage`: also the writes to issues
 * and reports (status, note, merge, move). `admin`: a project's settings (its notification
 * destinations). A key is `read` unless created with more.
 */
export const API_KEY_SCOPES = ['read', 'triage', 'admin'] as const;
export const ApiKeyScope = z.enum(API_KEY_SCOPES, {
  error: (i) => `must be one of ${API_KEY_SCOPES.join(', ')} (received ${describeValue(i.input)})`,
});
export type ApiKeyScope = z.infer<typeof ApiKeyScope>;

export const ISSUE_SORTS = ['last_seen', 'first_seen', 'count'] as const;

/**
 * What an issue is about, from its reports' outcomes: `problem` (failure, confusing, gave_up),
 * `request` (feature requests) or `success` (calls that worked). The Issues view lists problems.
 */
export const ISSUE_KINDS = ['problem', 'request', 'success'] as const;
export const IssueKind = z.enum(ISSUE_KINDS, {
  error: (i) => `must be one of ${ISSUE_KINDS.join(', ')} (received ${describeValue(i.input)})`,
});
export type IssueKind = z.infer<typeof IssueKind>;

/** Longest `q` of the issues list: a title is seldom longer than a sentence. */
export const ISSUE_SEARCH_MAX_LENGTH = 200;
/** Longest title a developer can give an issue. */
export const ISSUE_TITLE_MAX_LENGTH = 200;

const label = validText(
  z.string().max(LABEL_MAX_LENGTH, { error: `must be at most ${LABEL_MAX_LENGTH} characters` }),
);

/**
 * Query of `GET /v1/dashboard/{projectId}/issues`. `from`/`to` are the reports list's, parsed
 * and refused alike: with either, only issues with a report in the range are listed, each with
 * its `range_count`, and `sort=count` orders by that count instead of the all-time one.
 */
export const ListIssuesQuery = z
  .object({
    status: z
      .enum([...ISSUE_STATUSES, 'all'], {
        error: (i) =>
          `must be one of open, resolved, ignored, all (received ${describeValue(i.input)})`,
      })
      .optional()
      .default('open'),
    outcome: Outcome.optional(),
    kind: IssueKind.optional(),
    tool_name: label.optional(),
    q: validText(
      z.string().max(ISSUE_SEARCH_MAX_LENGTH, {
        error: `must be at most ${ISSUE_SEARCH_MAX_LENGTH} characters`,
      }),
    )
      // Blank is no search: a cleared search box sends nothing to match.
      .transform((value) => value.trim() || undefined)
      .optional(),
    sort: z
      .enum(ISSUE_SORTS, {
        error: (i) =>
          `must be one of ${ISSUE_SORTS.join(', ')} (received ${describeValue(i.input)})`,
      })
      .optional()
      .default('last_seen'),
    page: positiveInt('page').optional().default(1),
    limit: pageLimit(),
    from: TimeBoundParam.optional(),
    to: TimeBoundParam.optional(),
  })
  .refine(...fromNotAfterTo);
export type ListIssuesQuery = z.output<typeof ListIssuesQuery>;
export type ListIssuesQueryInput = z.input<typeof ListIssuesQuery>;

export const IssueSummary = z.object({
  id: Id32,
  title: z.string(),
  status: IssueStatus,
  /** When a new report last reopened it after it was resolved; null if it never regressed. */
  regressed_at: WireTimestamp.nullable(),
  /** The outcome most of its reports have (ties: the earlier in OUTCOMES). */
  outcome: z.enum(OUTCOMES),
  tool_name: z.string().nullable(),
  report_count: z.number().int(),
  /**
   * Its reports in the list's `from`/`to` range (issues list only); null when no range was
   * asked for, and in every other place an issue is shown (its page, `event: issue`).
   */
  range_count: z.number().int().nullable(),
  first_seen: WireTimestamp,
  last_seen: WireTimestamp,
  /** The `details` of its most recent report, cut to 280 characters. */
  sample_details: z.string(),
  /**
   * Issues list only: a larger issue of the same tool this one is likely a duplicate of (GET
   * …/issues/{id}/similar says why), or null; absent everywhere else.
   */
  possible_duplicate_of: Id32.nullable().optional(),
  /**
   * Issues list only: whether a notification mute silences it now, for every destination or for
   * some (GET …/issues/{id}/mutes lists them); absent everywhere else.
   */
  muted: z.boolean().optional(),
});
export type IssueSummary = z.infer<typeof IssueSummary>;

/** Reports of one UTC day (`YYYY-MM-DD`): an issue's `daily` and the list's `trend`. */
export const DayCount = z.object({ day: z.string(), count: z.number().int() });
export type DayCount = z.infer<typeof DayCount>;

/** How many UTC days, today included, an issue's `trend` in the list covers. */
export const ISSUE_TREND_DAYS = 14;

/** An issue as the list shows it: its summary and its recent days, for a sparkline. */
export const IssueListItem = IssueSummary.extend({
  /**
   * Reports per UTC day of the last 14 (today and the 13 before it) that had any, oldest
   * first; days without reports are omitted, as in an issue's `daily`. Empty where a server
   * predates it, so a newer client reads an older server.
   */
  trend: z.array(DayCount).default([]),
});
export type IssueListItem = z.infer<typeof IssueListItem>;

export const IssueList = z.object({
  project: z.object({ id: z.string(), name: z.string() }),
  issues: z.array(IssueListItem),
  pagination: Pagination,
});
export type IssueList = z.infer<typeof IssueList>;

export const IssueDetail = IssueSummary.extend({
  resolved_at: WireTimestamp.nullable(),
  note: z.string().nullable(),
  /** What agents that report this issue are told in the submit answer; null: nothing. */
  agent_note: z.string().nullable(),
  outcome_counts: z.object({
    success: z.number().int(),
    failure: z.number().int(),
    confusing: z.number().int(),
    gave_up: z.number().int(),
    request: z.number().int(),
  }),
  /** Reports per `source` (null: reports without one), most first, at most 20. */
  sources: z.array(z.object({ source: z.string().nullable(), count: z.number().int() })),
  /** Reports per agent client (`metadata.client_name`), most first, at most 20. */
  clients: z.array(z.object({ client: z.string().nullable(), count: z.number().int() })),
  /**
   * Reports per model (`metadata.model`), most first, at most 20. An empty list where a server
   * predates it, so a newer client reads an older server.
   */
  models: z.array(z.object({ model: z.string().nullable(), count: z.number().int() })).default([]),
  /**
   * Reports per agent client and version (`metadata.client_name` and `metadata.client_version`),
   * most first, at most 20.
   */
  client_versions: z
    .array(
      z.object({
        client: z.string().nullable(),
        version: z.string().nullable(),
        count: z.number().int(),
      }),
    )
    .default([]),
  /** Reports per UTC day (`YYYY-MM-DD`) of the last 90 days that had any, oldest first. */
  daily: z.array(DayCount),
  created_at: WireTimestamp,
  updated_at: WireTimestamp,
});
export type IssueDetail = z.infer<typeof IssueDetail>;

export const ISSUE_NOTE_MAX_LENGTH = 10_000;

/** Body of `PATCH /v1/dashboard/{projectId}/issues/{issueId}`: at least one of the three. */
export const UpdateIssueBody = z
  .object({
    status: IssueStatus.optional(),
    title: validText(
      z.string({ error: 'must be a string' }).max(ISSUE_TITLE_MAX_LENGTH, {
        error: `must be at most ${ISSUE_TITLE_MAX_LENGTH} characters`,
      }),
    )
      .transform((value) => value.trim())
      .refine((value) => value.length > 0, { error: 'must not be blank' })
      .optional(),
    note: z
      .string({ error: 'must be a string, or null to clear the note' })
      .max(ISSUE_NOTE_MAX_LENGTH, { error: `must be at most ${ISSUE_NOTE_MAX_LENGTH} characters` })
      .refine(hasNoNul, { error: NUL_CHARACTER_MESSAGE })
      .nullable()
      .optional(),
    agent_note: z
      .string({ error: 'must be a string, or null to clear the agent note' })
      .max(AGENT_NOTE_MAX_LENGTH, {
        error: `must be at most ${AGENT_NOTE_MAX_LENGTH} characters: agents read it in the submit answer`,
      })
      .refine(hasNoNul, { error: NUL_CHARACTER_MESSAGE })
      .nullable()
      .optional(),
  })
  .refine(
    (body) =>
      body.status !== undefined ||
      body.note !== undefined ||
      body.agent_note !== undefined ||
      body.title !== undefined,
    {
      error: 'must have status (open, resolved or ignored), note, agent_note or title, or several',
      path: [],
    },
  )
  // The refinement as JSON Schema says it: an empty object is refused.
  .meta({ minProperties: 1 });
export type UpdateIssueBody = z.input<typeof UpdateIssueBody>;

/** Body of `POST …/issues/{issueId}/merge`: the issue that absorbs this one. */
export const MergeIssueBody = z.object({ into: Id32 });
export type MergeIssueBody = z.input<typeof MergeIssueBody>;

/** Body of `POST …/reports/{reportId}/move`: into an existing issue, or out into a new one. */
export const MoveReportBody = z.union(
  [z.object({ issue_id: Id32 }).strict(), z.object({ new_issue: z.literal(true) }).strict()],
  {
    error: 'must be {"issue_id": "<32 hex issue id>"} or {"new_issue": true}',
  },
);
export type MoveReportBody = z.input<typeof MoveReportBody>;

export const MovedReport = z.object({
  ok: z.literal(true),
  report_id: Id32,
  issue_id: Id32,
  /** The issue it left; null if it had none yet. */
  from_issue_id: Id32.nullable(),
});
export type MovedReport = z.infer<typeof MovedReport>;

/**
 * `event: issue` on the event stream: an issue was created, regressed (a resolved one got a new
 * report) or changed status (triage, merge).
 */
export const IssueEvent = z.object({
  change: z.enum(['created', 'regressed', 'status', 'merged']),
  issue: IssueSummary,
  /** For `merged`: the issue it was merged into. */
  into: Id32.optional(),
});
export type IssueEvent = z.infer<typeof IssueEvent>;
