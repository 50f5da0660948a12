import type { ColumnType, Generated } from 'kysely';

/**
 * Timestamps are `timestamptz` on PostgreSQL (read back as Date) and ISO 8601 text with
 * milliseconds on SQLite (read back as string, which sorts correctly). Always written as ISO text.
 */
export type Timestamp = ColumnType<Date | string, string, string>;

export interface AccountsTable {
  id: string;
  email: string;
  password_hash: string | null;
  /** Per-account override of the instance's monthly quota; null = use the instance default. */
  monthly_quota: number | null;
  /** 1 = no monthly limit (integer rather than boolean so both dialects read the same value). */
  quota_unlimited: Generated<number>;
  /** 1 = the instance's operator (at most one row: a partial unique index, migration 0007). */
  is_operator: Generated<number>;
  created_at: Timestamp;
}

export interface ProjectsTable {
  id: string;
  account_id: string;
  name: string;
  created_at: Timestamp;
  /** The project's own ingest limits; null = the instance's default (migration 0006). */
  key_rate: number | null;
  key_burst: number | null;
  address_rate: number | null;
  address_burst: number | null;
  address_daily_share: number | null;
  /** Reports per UTC month this project may store; null = no cap of its own. */
  monthly_cap: number | null;
  /** 1 = redact email addresses and phone numbers too (reports/redaction/). */
  redact_personal_data: Generated<number>;
}

/** A capped project's reports per UTC month (`YYYY-MM`). */
export interface ProjectUsageTable {
  project_id: string;
  month: string;
  count: number;
}

/** An account's reports per client address and UTC day (`YYYY-MM-DD`). */
export interface AddressUsageTable {
  account_id: string;
  address: string;
  day: string;
  count: number;
}

/** Refused submissions per project, UTC day, client address and reason (ThrottleReason). */
export interface ThrottledRequestsTable {
  project_id: string;
  day: string;
  address: string;
  reason: string;
  count: number;
}

export interface IngestKeysTable {
  id: string;
  project_id: string;
  key: string;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
  /** Space-separated ApiKeyScope values; `read` unless created with more (migration 0013). */
  scopes: Generated<string>;
}

export interface ReportsTable {
  id: string;
  project_id: string;
  outcome: string;
  tool_name: string | null;
  source: string | null;
  details: string;
  /** JSON text of a flat object, or null. */
  metadata: string | null;
  created_at: Timestamp;
  /** How many credentials were replaced by `[REDACTED:<kind>]` before storing. */
  redactions: Generated<number>;
}

/**
 * Reports waiting for their issue (migration 0019): a row per stored batch the write path did
 * not group, from when its first report was stored (issues/pipeline/grouping-queue.ts).
 */
export interface GroupingQueueTable {
  /** One of its report ids (the first; the smallest in the rows 0019 made): unique as they are. */
  id: string;
  created_at: Timestamp;
  /** The batch's report ids, in report order: a JSON array. */
  report_ids: string;
}

/**
 * A placed report's issue (migration 0017): a row per report, inserted once with its issue by the
 * grouper, the SQLite writer's grouped move or a developer's move (the reports still waiting are
 * queued in `grouping_queue`, migration 0019). Apart from `reports`, which is never updated.
 */
export interface ReportIssuesTable {
  report_id: string;
  project_id: string;
  created_at: Timestamp;
  issue_id: string | null;
  /** Why it joined its issue: the grouping engine's reason, or a developer's move. */
  issue_reason: string | null;
}

/**
 * Reports per issue and UTC day (migration 0036): the issue's rows of `report_issues` counted,
 * kept in the transaction of each write of them (issues/issue-days.repository.ts).
 */
export interface IssueDaysTable {
  issue_id: string;
  /** The UTC date, `YYYY-MM-DD`. */
  day: string;
  project_id: string;
  count: number;
}

/** The problems behind a project's reports (migration 0013). */
export interface IssuesTable {
  id: string;
  project_id: string;
  status: string;
  regressed_at: Timestamp | null;
  resolved_at: Timestamp | null;
  title: string;
  tool_name: string | null;
  /** problem | success | request: with tool_name, bounds the grouping candidates. */
  kind: string;
  /** The grouping engine's signature, JSON text. */
  signature: string;
  /** The most frequent outcome of its reports (ties: the earlier in OUTCOMES). */
  outcome: string;
  report_count: number;
  count_success: number;
  count_failure: number;
  count_confusing: number;
  count_gave_up: number;
  count_request: number;
  sample_details: string;
  first_seen: Timestamp;
  last_seen: Timestamp;
  note: string | null;
  /** Told to the agents whose reports join it, in the submit answer (migration 0029). */
  agent_note: string | null;
  /** Close reports that opened issues of their own: lowers the grouping bar (migration 0032). */
  near_misses: Generated<number>;
  /** The engine's TERMS_VERSION its signature was read under (migration 0035). */
  terms_version: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One row, 'default': how far the grouper has come (issues/pipeline/grouper.ts). */
export interface GroupingProgressTable {
  id: string;
  last_created_at: Timestamp | null;
  last_report_id: string | null;
  grouped_count: ColumnType<number | string | bigint, number, number>;
  updated_at: Timestamp | null;
  /** Transactions that wrote issues so far (migration 0014; issues/pipeline/pool-cache.ts). */
  issues_version: ColumnType<number | string | bigint, number, number>;
}

/** What happened to an issue and who did it (migration 0023; issues/issue-activity.ts). */
export interface IssueActivityTable {
  id: string;
  project_id: string;
  issue_id: string;
  /** An IssueActivityAction of @debrief/protocol. */
  action: string;
  /** user | api_key | system */
  actor_type: string;
  actor_name: string | null;
  from_value: string | null;
  to_value: string | null;
  related_issue_id: string | null;
  report_id: string | null;
  created_at: Timestamp;
}

/** A report a developer moved: reports like it follow it (issues/grouping/index.ts). */
export interface IssueExemplarsTable {
  id: string;
  project_id: string;
  issue_id: string;
  tool_name: string | null;
  kind: string;
  signature: string;
  /** The engine's TERMS_VERSION its signature was read under (migration 0035). */
  terms_version: Generated<number>;
  report_id: string;
  created_at: Timestamp;
}

/** A project's grouping rules, applied before the engine (migration 0020; issues/rules/). */
export interface GroupingRulesTable {
  id: string;
  project_id: string;
  /** route | never_join */
  type: string;
  name: string;
  pattern: string | null;
  /** text | regex */
  pattern_type: string | null;
  tool_name: string | null;
  issue_id: string | null;
  tool_a: string | null;
  tool_b: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A merge that unmerge can undo: the merged issue as it was (migration 0021; issues/merges/). */
export interface IssueMergesTable {
  id: string;
  project_id: string;
  into_issue_id: string;
  issue_id: string;
  title: string;
  status: string;
  regressed_at: Timestamp | null;
  resolved_at: Timestamp | null;
  note: string | null;
  tool_name: string | null;
  kind: string;
  signature: string;
  /** The engine's TERMS_VERSION its signature was read under (migration 0035). */
  terms_version: Generated<number>;
  /** The grouping rules the merge sent to the issue it went into: a JSON array of ids. */
  rule_ids: string;
  created_at: Timestamp;
  merged_at: Timestamp;
}

/** The reports a merge brought into its issue (migration 0021). */
export interface IssueMergeReportsTable {
  merge_id: string;
  report_id: string;
  /** Its reason in the merged issue, given back on unmerge. */
  issue_reason: string | null;
}

/** Issue pairs a developer said are not the same problem (migration 0022; issues/similar/). */
export interface SimilarRejectionsTable {
  project_id: string;
  /** The smaller id of the pair. */
  issue_a: string;
  issue_b: string;
  created_at: Timestamp;
}

export interface UsageCountersTable {
  account_id: string;
  /** UTC calendar month, `YYYY-MM`. */
  month: string;
  count: number;
}

/** Reports per project and (tool_name, source, outcome); '' stands for an absent label. */
export interface ReportCountsTable {
  project_id: string;
  tool_name: string;
  source: string;
  outcome: string;
  count: number;
}

/** Reports per project and outcome, all time (migration 0018): an unfiltered list's stats. */
export interface ReportOutcomeCountsTable {
  project_id: string;
  outcome: string;
  count: number;
}

/**
 * Reports per project, UTC hour and (tool_name, source, outcome) (migration 0010); '' stands
 * for an absent label.
 */
export interface ReportRollupsTable {
  project_id: string;
  hour: Timestamp;
  tool_name: string;
  source: string;
  outcome: string;
  count: number;
}

/** As report_rollups, per UTC day (migration 0010). */
export interface ReportRollupsDailyTable {
  project_id: string;
  day: Timestamp;
  tool_name: string;
  source: string;
  outcome: string;
  count: number;
}

/**
 * The rollups that keep fewer labels (migration 0015, reports/report-rollup-key.ts): per UTC
 * day by tool, by source or by outcome alone, per hour and per minute by outcome alone.
 */
interface NarrowRollup {
  project_id: string;
  outcome: string;
  count: number;
}
export type ReportRollupsDayToolsTable = NarrowRollup & { day: Timestamp; tool_name: string };
export type ReportRollupsDaySourcesTable = NarrowRollup & { day: Timestamp; source: string };
export type ReportRollupsDayOutcomesTable = NarrowRollup & { day: Timestamp };
export type ReportRollupsHourOutcomesTable = NarrowRollup & { hour: Timestamp };
export type ReportRollupsMinuteOutcomesTable = NarrowRollup & { minute: Timestamp };
export type ReportRollupsWeekToolsTable = NarrowRollup & { week: Timestamp; tool_name: string };

export interface SessionsTable {
  /** SHA-256 (hex) of the random session id in the cookie: a leaked table signs nobody in. */
  id_hash: string;
  account_id: string;
  csrf_token: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

/** One-time sign-up links (migration 0007). Only the token's SHA-256 is stored. */
export interface InvitationsTable {
  id: string;
  token_hash: string;
  /** When set, only this (normalised) email can accept it. */
  email: string | null;
  /** The operator who made it; null when made with the CLI. */
  created_by: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  used_by: string | null;
  revoked_at: Timestamp | null;
}

/** Throttle counters shared by every instance (migration 0012, accounts/failure-counter.ts). */
export interface AuthFailuresTable {
  scope: string;
  /** SHA-256 (hex) of what is counted. */
  key: string;
  failures: number;
  /** Milliseconds and epoch milliseconds; pg returns bigint as text, so read through Number(). */
  delay_ms: ColumnType<number | string, number, number>;
  locked_until: ColumnType<number | string, number, number>;
  expires_at: ColumnType<number | string, number, number>;
}

/** What one sender said about one UTC minute of one tool (migration 0030; POST /v1/usage). */
export interface ToolUsageWindowsTable {
  project_id: string;
  window_start: Timestamp;
  /** The sender's `instance`, '' when it named none. */
  instance: string;
  tool_name: string;
  /** '' = none named. */
  server_version: string;
  /** bigint on PostgreSQL: read back as a string there. */
  calls: ColumnType<number | string, number, number>;
  errors: ColumnType<number | string, number, number>;
}

/** Call counts per UTC hour, tool and server version (migration 0030). */
export interface ToolUsageHoursTable {
  project_id: string;
  hour: Timestamp;
  tool_name: string;
  server_version: string;
  calls: ColumnType<number | string, number, number>;
  errors: ColumnType<number | string, number, number>;
}

/** Call counts per UTC day, tool and server version (migration 0030). */
export interface ToolUsageDaysTable {
  project_id: string;
  day: Timestamp;
  tool_name: string;
  server_version: string;
  calls: ColumnType<number | string, number, number>;
  errors: ColumnType<number | string, number, number>;
}

/** A project's forwarding secrets, hashed (migration 0031; limits/forwarding/). */
export interface ForwardingSecretsTable {
  id: string;
  project_id: string;
  name: string;
  /** The first characters of the secret, shown to tell them apart. */
  prefix: string;
  /** SHA-256 of the secret, hex. */
  secret_hash: string;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
}

/** An issue muted for a destination (or every one, `destination_id` null); see migration 0028. */
export interface NotificationMutesTable {
  id: string;
  project_id: string;
  issue_id: string;
  destination_id: string | null;
  /** Muted until this time; null: no time limit. */
  until: Timestamp | null;
  /** Muted until the issue has this many reports; null: no count limit. */
  until_count: number | null;
  created_at: Timestamp;
}

/** An address that left an email destination through its unsubscribe link. */
export interface NotificationUnsubscribesTable {
  destination_id: string;
  address: string;
  created_at: Timestamp;
}

/** What the producers already announced or consumed, one claim per (scope, subject). */
export interface NotificationMarksTable {
  scope: string;
  subject: string;
  value: string;
  updated_at: Timestamp;
}

export interface DB {
  accounts: AccountsTable;
  projects: ProjectsTable;
  ingest_keys: IngestKeysTable;
  api_keys: ApiKeysTable;
  reports: ReportsTable;
  report_issues: ReportIssuesTable;
  issue_days: IssueDaysTable;
  grouping_queue: GroupingQueueTable;
  usage_counters: UsageCountersTable;
  project_usage: ProjectUsageTable;
  address_usage: AddressUsageTable;
  throttled_requests: ThrottledRequestsTable;
  report_counts: ReportCountsTable;
  report_outcome_counts: ReportOutcomeCountsTable;
  report_rollups: ReportRollupsTable;
  report_rollups_daily: ReportRollupsDailyTable;
  report_rollups_day_tools: ReportRollupsDayToolsTable;
  report_rollups_day_sources: ReportRollupsDaySourcesTable;
  report_rollups_day_outcomes: ReportRollupsDayOutcomesTable;
  report_rollups_hour_outcomes: ReportRollupsHourOutcomesTable;
  report_rollups_minute_outcomes: ReportRollupsMinuteOutcomesTable;
  report_rollups_week_tools: ReportRollupsWeekToolsTable;
  sessions: SessionsTable;
  invitations: InvitationsTable;
  auth_failures: AuthFailuresTable;
  issues: IssuesTable;
  issue_activity: IssueActivityTable;
  grouping_progress: GroupingProgressTable;
  issue_exemplars: IssueExemplarsTable;
  grouping_rules: GroupingRulesTable;
  issue_merges: IssueMergesTable;
  issue_merge_reports: IssueMergeReportsTable;
  similar_rejections: SimilarRejectionsTable;
  tool_usage_windows: ToolUsageWindowsTable;
  tool_usage_hours: ToolUsageHoursTable;
  tool_usage_days: ToolUsageDaysTable;
  forwarding_secrets: ForwardingSecretsTable;
  notification_destinations: NotificationDestinationsTable;
  notification_outbox: NotificationOutboxTable;
  notification_messages: NotificationMessagesTable;
  notification_attempts: NotificationAttemptsTable;
  notification_mutes: NotificationMutesTable;
  notification_unsubscribes: NotificationUnsubscribesTable;
  notification_marks: NotificationMarksTable;
}

/** Epoch milliseconds; pg returns bigint as text, so read through Number(). */
type EpochMs = ColumnType<number | string, number, number>;

/** A project's notification destination (migration 0025); JSON text in the list columns. */
export interface NotificationDestinationsTable {
  id: string;
  project_id: string;
  type: string;
  name: string | null;
  url: string | null;
  to_addresses: string | null;
  events: string;
  filter: string;
  spike: string;
  digest_hour: number | null;
  metadata_keys: string;
  status: string;
  secret: string | null;
  previous_secret: string | null;
  previous_secret_until: EpochMs | null;
  failing_since: EpochMs | null;
  last_delivery_at: EpochMs | null;
  last_error: string | null;
  created_at: EpochMs;
  updated_at: EpochMs;
}

/** An event written by its producer, not yet turned into messages (migration 0026). */
export interface NotificationOutboxTable {
  id: string;
  project_id: string;
  type: string;
  issue_id: string | null;
  report_id: string | null;
  data: string | null;
  destination_id: string | null;
  created_at: EpochMs;
}

/** One notification to one destination; `id` is its `webhook-id` (migration 0026). */
export interface NotificationMessagesTable {
  id: string;
  destination_id: string;
  project_id: string;
  type: string;
  payload: string;
  /** pending | succeeded | failed */
  status: string;
  attempts: number;
  max_attempts: number;
  next_attempt_at: EpochMs | null;
  lease_until: EpochMs | null;
  created_at: EpochMs;
  updated_at: EpochMs;
  /** An email message's addresses already sent to: a JSON array, lowercased (migration 0034). */
  done_recipients: string | null;
}

/** One attempt of a message: the delivery log (migration 0026). */
export interface NotificationAttemptsTable {
  id: string;
  message_id: string;
  destination_id: string;
  type: string;
  attempt: number;
  /** succeeded | failed */
  status: string;
  response_status: number | null;
  error: string | null;
  next_attempt_at: EpochMs | null;
  created_at: EpochMs;
}

export function toDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value);
}
