import { singleReportIdsSql } from './grouping-queue-row.js';

/**
 * What `debrief copy` does with each table of a SQLite database (db/copy-database.ts), in
 * foreign-key order: a table is copied after every table it references. A table of the source
 * that is not listed here stops the copy before it starts, so a table added by a later
 * migration is never skipped silently: add it here, in its place (the copy checks the order
 * against the source's foreign keys too).
 */
export type TablePlan =
  /** Copied row for row into the table of the same name. */
  | { table: string; action: 'copy' }
  /**
   * Copied into another table: SQLite's report inbox holds reports not yet moved. `columns`
   * (a target column → its source column, or `{ sql }`: an expression over the source row)
   * copies only those: all, by name, when absent.
   */
  | {
      table: string;
      action: 'copy-into';
      into: string;
      columns?: Record<string, string | { sql: string }>;
    }
  /** Not copied, with the reason. */
  | { table: string; action: 'skip'; why: string };

export const TABLE_PLAN: readonly TablePlan[] = [
  { table: 'accounts', action: 'copy' },
  { table: 'projects', action: 'copy' },
  { table: 'ingest_keys', action: 'copy' },
  { table: 'api_keys', action: 'copy' },
  { table: 'invitations', action: 'copy' },
  { table: 'instance_settings', action: 'copy' },
  { table: 'usage_counters', action: 'copy' },
  { table: 'project_usage', action: 'copy' },
  { table: 'address_usage', action: 'copy' },
  { table: 'throttled_requests', action: 'copy' },
  { table: 'report_counts', action: 'copy' },
  { table: 'report_outcome_counts', action: 'copy' },
  { table: 'report_rollups', action: 'copy' },
  { table: 'report_rollups_daily', action: 'copy' },
  { table: 'report_rollups_day_tools', action: 'copy' },
  { table: 'report_rollups_day_sources', action: 'copy' },
  { table: 'report_rollups_day_outcomes', action: 'copy' },
  { table: 'report_rollups_hour_outcomes', action: 'copy' },
  { table: 'report_rollups_minute_outcomes', action: 'copy' },
  { table: 'report_rollups_week_tools', action: 'copy' },
  // Call counts (migration 0030) and forwarding secrets (0031), each after its project.
  { table: 'tool_usage_windows', action: 'copy' },
  { table: 'tool_usage_hours', action: 'copy' },
  { table: 'tool_usage_days', action: 'copy' },
  { table: 'forwarding_secrets', action: 'copy' },
  // Issues before the reports that name them, and the moves they remember.
  { table: 'issues', action: 'copy' },
  { table: 'issue_exemplars', action: 'copy' },
  // A project's grouping rules, undoable merges and rejected suggestions.
  { table: 'grouping_rules', action: 'copy' },
  { table: 'issue_merges', action: 'copy' },
  { table: 'issue_merge_reports', action: 'copy' },
  { table: 'similar_rejections', action: 'copy' },
  { table: 'issue_activity', action: 'copy' },
  { table: 'reports', action: 'copy' },
  // Each placed report's issue (migration 0017), their count per issue and day (0036), and the
  // reports waiting for one (0019).
  { table: 'report_issues', action: 'copy' },
  { table: 'issue_days', action: 'copy' },
  { table: 'grouping_queue', action: 'copy' },
  // Mutes and unsubscribes are the users' choices; marks keep events from firing twice.
  { table: 'notification_mutes', action: 'copy' },
  { table: 'notification_unsubscribes', action: 'copy' },
  { table: 'notification_marks', action: 'copy' },
  // After `reports`: the inbox's reports join those already moved (their ids never collide),
  // each queued for the grouper, as a move without grouping would queue it (a row each here).
  { table: 'report_inbox', action: 'copy-into', into: 'reports' },
  {
    table: 'report_inbox',
    action: 'copy-into',
    into: 'grouping_queue',
    columns: { id: 'id', created_at: 'created_at', report_ids: { sql: singleReportIdsSql('id') } },
  },
  // Destinations after their projects; the outbox, messages and log name them by id only.
  { table: 'notification_destinations', action: 'copy' },
  { table: 'notification_outbox', action: 'copy' },
  { table: 'notification_messages', action: 'copy' },
  { table: 'notification_attempts', action: 'copy' },
  {
    table: 'sessions',
    action: 'skip',
    why: 'sessions are not copied: everyone signs in again on the new database',
  },
  {
    table: 'auth_failures',
    action: 'skip',
    why: 'sign-in throttle counters last minutes and start afresh',
  },
  {
    table: 'grouping_progress',
    action: 'skip',
    why: "the target's migration makes its own row; the grouper finds what is left to group in grouping_queue",
  },
  { table: 'kysely_migration', action: 'skip', why: 'the target is migrated by its own run' },
  { table: 'kysely_migration_lock', action: 'skip', why: 'the target is migrated by its own run' },
];
