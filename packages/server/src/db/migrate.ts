import { type Migration, Migrator } from 'kysely';
import { printableDatabaseUrl, StartupError } from '../errors/startup-error.js';
import {
  type Database,
  type DatabaseLog,
  isPostgresUrl,
  openDatabase,
  type ReadOptions,
} from './database.js';
import { initialMigration } from './migrations/0001-initial.js';
import { sessionsMigration } from './migrations/0002-sessions.js';
import { instanceSettingsMigration } from './migrations/0003-instance-settings.js';
import { reportCountsMigration } from './migrations/0004-report-counts.js';
import { reportInboxMigration } from './migrations/0005-report-inbox.js';
import { ingestLimitsMigration } from './migrations/0006-ingest-limits.js';
import { invitationsMigration } from './migrations/0007-invitations.js';
import { redactionAndLabelCapsMigration } from './migrations/0009-redaction-and-label-caps.js';
import { reportRollupsMigration } from './migrations/0010-report-rollups.js';
import { reportPageIndexesMigration } from './migrations/0011-report-page-indexes.js';
import { authFailuresMigration } from './migrations/0012-auth-failures.js';
import { issuesMigration } from './migrations/0013-issues.js';
import { issuesVersionMigration } from './migrations/0014-issues-version.js';
import { narrowRollupsMigration } from './migrations/0015-narrow-rollups.js';
import { weekToolsMigration } from './migrations/0016-week-tools.js';
import { reportIssuesMigration } from './migrations/0017-report-issues.js';
import { outcomeCountsMigration } from './migrations/0018-outcome-counts.js';
import { groupingQueueMigration } from './migrations/0019-grouping-queue.js';
import { groupingRulesMigration } from './migrations/0020-grouping-rules.js';
import { issueMergesMigration } from './migrations/0021-issue-merges.js';
import { similarRejectionsMigration } from './migrations/0022-similar-rejections.js';
import { issueActivityMigration } from './migrations/0023-issue-activity.js';
import { notificationDestinationsMigration } from './migrations/0025-notification-destinations.js';
import { notificationOutboxMigration } from './migrations/0026-notification-outbox.js';
import { notificationStateMigration } from './migrations/0028-notification-state.js';
import { agentNotesMigration } from './migrations/0029-agent-notes.js';
import { toolUsageMigration } from './migrations/0030-tool-usage.js';
import { forwardingSecretsMigration } from './migrations/0031-forwarding-secrets.js';
import { issueNearMissesMigration } from './migrations/0032-issue-near-misses.js';
import { notificationRecipientsMigration } from './migrations/0034-notification-recipients.js';
import { termsVersionMigration } from './migrations/0035-terms-version.js';
import { issueDaysMigration } from './migrations/0036-issue-days.js';

/**
 * Every migration, in order. Names sort; add new ones at the end as `000N-what` in
 * `migrations/`. Each takes the dialect because column types differ (timestamptz vs text).
 */
export function migrations(db: Database): Record<string, Migration> {
  return {
    '0001-initial': initialMigration(db.dialect),
    '0002-sessions': sessionsMigration(db.dialect),
    '0003-instance-settings': instanceSettingsMigration(),
    '0004-report-counts': reportCountsMigration(),
    '0005-report-inbox': reportInboxMigration(db.dialect),
    '0006-ingest-limits': ingestLimitsMigration(),
    '0007-invitations': invitationsMigration(db.dialect),
    '0009-redaction-and-label-caps': redactionAndLabelCapsMigration(db.dialect),
    '0010-report-rollups': reportRollupsMigration(db.dialect),
    '0011-report-page-indexes': reportPageIndexesMigration(),
    '0012-auth-failures': authFailuresMigration(),
    '0013-issues': issuesMigration(db.dialect),
    '0014-issues-version': issuesVersionMigration(),
    '0015-narrow-rollups': narrowRollupsMigration(db.dialect),
    '0016-week-tools': weekToolsMigration(db.dialect),
    '0017-report-issues': reportIssuesMigration(db.dialect),
    '0018-outcome-counts': outcomeCountsMigration(db.dialect),
    '0019-grouping-queue': groupingQueueMigration(db.dialect),
    '0020-grouping-rules': groupingRulesMigration(db.dialect),
    '0021-issue-merges': issueMergesMigration(db.dialect),
    '0022-similar-rejections': similarRejectionsMigration(db.dialect),
    '0023-issue-activity': issueActivityMigration(db.dialect),
    '0025-notification-destinations': notificationDestinationsMigration(),
    '0026-notification-outbox': notificationOutboxMigration(),
    '0028-notification-state': notificationStateMigration(db.dialect),
    '0029-agent-notes': agentNotesMigration(),
    '0030-tool-usage': toolUsageMigration(db.dialect),
    '0031-forwarding-secrets': forwardingSecretsMigration(db.dialect),
    '0032-issue-near-misses': issueNearMissesMigration(),
    '0034-notification-recipients': notificationRecipientsMigration(),
    '0035-terms-version': termsVersionMigration(),
    '0036-issue-days': issueDaysMigration(db.dialect),
  };
}

export async function migrateToLatest(db: Database): Promise<string[]> {
  const migrator = new Migrator({
    db: db.kysely,
    provider: { getMigrations: async () => migrations(db) },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Opens DATABASE_URL and brings its schema up to date: what `serve` and every CLI command do
 * first. A database that cannot be opened, reached or migrated stops them with a StartupError
 * that names the setting, instead of a driver's stack trace.
 */
export async function openMigratedDatabase(
  url: string,
  log?: DatabaseLog,
  reads?: ReadOptions,
): Promise<{ database: Database; applied: string[] }> {
  let database: Database | null = null;
  try {
    database = openDatabase(url, log, reads);
    return { database, applied: await migrateToLatest(database) };
  } catch (error) {
    await database?.close().catch(() => {});
    // Already says what is wrong and what to do (an orphaned -wal beside a missing file).
    if (error instanceof StartupError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    const fix = isPostgresUrl(url)
      ? 'check the host, port, database name and credentials, and that PostgreSQL is running'
      : 'it must name a Debrief SQLite file, or a path where one can be created';
    throw new StartupError(
      `Cannot use the database DATABASE_URL=${printableDatabaseUrl(url)}: ${reason}. Fix DATABASE_URL: ${fix}.`,
      { cause: error },
    );
  }
}
