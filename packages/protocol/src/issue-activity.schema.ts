import { z } from 'zod';
import { Id32 } from './issue.schema.js';
import { WireTimestamp } from './report.schema.js';

/**
 * What happened to an issue, newest first on its page: a change of status, of note or of title,
 * an issue merged into it (or split back out of it), a report moved in or out.
 */
export const ISSUE_ACTIVITY_ACTIONS = [
  'status',
  'note',
  'renamed',
  'merged',
  'unmerged',
  'report_moved_in',
  'report_moved_out',
] as const;
export type IssueActivityAction = (typeof ISSUE_ACTIVITY_ACTIONS)[number];

/** Who did it: a signed-in user (their email) or an API key (its name and visible prefix). */
export const ISSUE_ACTOR_TYPES = ['user', 'api_key', 'system'] as const;
export type IssueActorType = (typeof ISSUE_ACTOR_TYPES)[number];

export const IssueActivityEntry = z.object({
  id: Id32,
  action: z.enum(ISSUE_ACTIVITY_ACTIONS),
  actor: z.object({
    type: z.enum(ISSUE_ACTOR_TYPES),
    /** The user's email, or the key's name and prefix ("ci (wk_sk_AbCd…)"); null for system. */
    name: z.string().nullable(),
  }),
  /**
   * The value before (`status`: the old status; `renamed`: the old title; `merged`: the merged
   * issue's title), null where there is none.
   */
  from: z.string().nullable(),
  /** The value after (`status`, `renamed`; `note`: the new note cut to 280 characters, null when cleared). */
  to: z.string().nullable(),
  /** The other issue: merged in, split out, where a report came from or went to. */
  related_issue_id: Id32.nullable(),
  /** The report moved, for `report_moved_in` and `report_moved_out`. */
  report_id: Id32.nullable(),
  created_at: WireTimestamp,
});
export type IssueActivityEntry = z.infer<typeof IssueActivityEntry>;

/** Answer of `GET …/issues/{issueId}/activity`: the most recent entries, newest first. */
export const IssueActivityList = z.object({
  issue_id: Id32,
  activity: z.array(IssueActivityEntry),
});
export type IssueActivityList = z.infer<typeof IssueActivityList>;
