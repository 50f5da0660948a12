import { z } from 'zod';
import { Id32, IssueSummary } from './issue.schema.js';
import { describeValue, LABEL_MAX_LENGTH, validText, WireTimestamp } from './report.schema.js';

/**
 * The developer's control over grouping: similar-issue suggestions (accepted by a merge, or
 * rejected), rules applied before the grouping engine, and unmerge.
 */

/** One issue that is likely the same problem as the issue asked about. */
export const SimilarIssue = z.object({
  issue: IssueSummary,
  /** How alike the two issues' reports are, 0–1 (the grouping engine's similarity). */
  score: z.number().min(0).max(1),
  /** Why it is suggested, for a person: the words the two share. */
  reason: z.string(),
});
export type SimilarIssue = z.infer<typeof SimilarIssue>;

/** Answer of `GET …/issues/{issueId}/similar`: most likely first, at most 5. */
export const SimilarIssues = z.object({
  issue_id: Id32,
  similar: z.array(SimilarIssue),
});
export type SimilarIssues = z.infer<typeof SimilarIssues>;

/** Body of `POST …/issues/{issueId}/similar/reject`: "not the same problem". */
export const RejectSimilarBody = z.object({ issue_id: Id32 });
export type RejectSimilarBody = z.input<typeof RejectSimilarBody>;

export const RejectedSimilar = z.object({
  ok: z.literal(true),
  issue_id: Id32,
  /** The issue that will no longer be suggested with it. */
  rejected_issue_id: Id32,
});
export type RejectedSimilar = z.infer<typeof RejectedSimilar>;

/** An issue merged into another, as the issue it went into lists it (unmerge can bring it back). */
export const MergedIssue = z.object({
  /** The merged issue's id: unmerging brings it back under the same id. */
  id: Id32,
  title: z.string(),
  tool_name: z.string().nullable(),
  /** Its reports that are still in the issue it was merged into. */
  report_count: z.number().int(),
  merged_at: WireTimestamp,
});
export type MergedIssue = z.infer<typeof MergedIssue>;

/** Answer of `GET …/issues/{issueId}/merges`: the issues merged into this one, newest first. */
export const MergedIssueList = z.object({
  issue_id: Id32,
  merged: z.array(MergedIssue),
});
export type MergedIssueList = z.infer<typeof MergedIssueList>;

/** Body of `POST …/issues/{issueId}/unmerge`: which merged-in issues to split off (all when absent). */
export const UnmergeIssueBody = z
  .object({
    issue_ids: z
      .array(Id32)
      .min(1, { error: 'must name at least one merged issue, or be left out to split them all' })
      .max(100, { error: 'must name at most 100 issues' })
      .optional(),
  })
  .strict();
export type UnmergeIssueBody = z.input<typeof UnmergeIssueBody>;

export const UnmergedIssue = z.object({
  ok: z.literal(true),
  issue_id: Id32,
  /** The issues brought back, each with its reports. */
  restored: z.array(IssueSummary),
});
export type UnmergedIssue = z.infer<typeof UnmergedIssue>;

export const GROUPING_RULE_TYPES = ['route', 'never_join'] as const;
export const PATTERN_TYPES = ['text', 'regex'] as const;
/** A rule's pattern is matched against a report's `details`; bounded so matching stays cheap. */
export const RULE_PATTERN_MAX_LENGTH = 200;
/** Rules per project: every report of the project is tested against each before the engine. */
export const RULES_PER_PROJECT_MAX = 50;

const ruleName = validText(
  z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(LABEL_MAX_LENGTH, { error: `must be at most ${LABEL_MAX_LENGTH} characters` }),
);
const toolName = validText(
  z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(LABEL_MAX_LENGTH, { error: `must be at most ${LABEL_MAX_LENGTH} characters` }),
);
const pattern = validText(
  z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .max(RULE_PATTERN_MAX_LENGTH, {
      error: `must be at most ${RULE_PATTERN_MAX_LENGTH} characters`,
    }),
);
const patternType = z.enum(PATTERN_TYPES, {
  error: (i) => `must be one of ${PATTERN_TYPES.join(', ')} (received ${describeValue(i.input)})`,
});

/** "Reports whose details match `pattern` (on `tool_name`, or any tool when null) go to `issue_id`." */
export const CreateRouteRule = z
  .object({
    type: z.literal('route'),
    name: ruleName,
    pattern,
    /** `text`: the details contain it, ignoring case; `regex`: a JavaScript regular expression, ignoring case. */
    pattern_type: patternType.default('text'),
    tool_name: toolName.nullable().default(null),
    issue_id: Id32,
  })
  .strict();
/** "Never join reports of tool A with reports of tool B." */
export const CreateNeverJoinRule = z
  .object({
    type: z.literal('never_join'),
    name: ruleName,
    tools: z.tuple([toolName, toolName], { error: 'must be two tool names' }),
  })
  .strict();
export const CreateGroupingRuleBody = z.discriminatedUnion('type', [
  CreateRouteRule,
  CreateNeverJoinRule,
]);
export type CreateGroupingRuleBody = z.input<typeof CreateGroupingRuleBody>;

/** Body of `PATCH …/grouping-rules/{ruleId}`: the fields to change, of the rule's own type. */
export const UpdateGroupingRuleBody = z
  .object({
    name: ruleName.optional(),
    pattern: pattern.optional(),
    pattern_type: patternType.optional(),
    tool_name: toolName.nullable().optional(),
    issue_id: Id32.optional(),
    tools: z.tuple([toolName, toolName], { error: 'must be two tool names' }).optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, {
    error: 'must change at least one field',
    path: [],
  })
  .meta({ minProperties: 1 });
export type UpdateGroupingRuleBody = z.input<typeof UpdateGroupingRuleBody>;

export const GroupingRule = z.object({
  id: Id32,
  type: z.enum(GROUPING_RULE_TYPES),
  name: z.string(),
  /** route: the pattern and how it is read; null for never_join. */
  pattern: z.string().nullable(),
  pattern_type: z.enum(PATTERN_TYPES).nullable(),
  /** route: the tool whose reports it applies to; null: every tool. */
  tool_name: z.string().nullable(),
  /** route: the issue matching reports go to. */
  issue_id: Id32.nullable(),
  /** never_join: the two tools whose reports never share an issue. */
  tools: z.array(z.string()).nullable(),
  created_at: WireTimestamp,
  updated_at: WireTimestamp,
});
export type GroupingRule = z.infer<typeof GroupingRule>;

export const GroupingRuleList = z.object({ rules: z.array(GroupingRule) });
export type GroupingRuleList = z.infer<typeof GroupingRuleList>;

export const DeletedGroupingRule = z.object({ ok: z.literal(true), id: Id32 });
export type DeletedGroupingRule = z.infer<typeof DeletedGroupingRule>;
