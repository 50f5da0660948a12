import { CompiledQuery, type Kysely } from 'kysely';
import type { Config } from '../../config.js';
import type { Database, Dialect } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import type { StorageDefaults } from '../../limits/storage-limits.js';
import { importSteps, type Row, runAsync } from './batch-steps.js';
import { createGroupCommitWriter } from './group-commit-writer.js';
import type { GroupingPort } from './grouping-port.js';
import type { QuotaCrossingPort } from './quota-crossing-port.js';
import type { NewReport, ReportWriter } from './report-writer.js';
import { createSqliteReportWriter } from './sqlite/sqlite-report-writer.js';

/**
 * The write path of reports: ONE entry point. One writer with two storage back ends that run the
 * same steps (batch-steps.ts) and rules (plan-batch.ts) over the same SQL (batch-statements.ts):
 *
 * - a SQLite file: a writer thread with its own connection, an inbox and a deferred WAL fsync
 *   (sqlite/, sealed: nothing outside this folder knows of them);
 * - PostgreSQL, and SQLite `:memory:` (which a second connection cannot open): group commit over
 *   Kysely transactions (group-commit-writer.ts).
 *
 * Grouping reports into issues is not the write path's: it hands what it stores over through
 * its port (grouping-port.ts), which issues/pipeline/ implements; it imports nothing of issues/.
 */

export type {
  ArrivalGrouper,
  ArrivalGrouperFactory,
  Arrivals,
  GroupArrivals,
  GroupingPort,
  IssueChange,
  ReportToGroup,
} from './grouping-port.js';
export type { QuotaCrossing, QuotaCrossingHook, QuotaCrossingPort } from './quota-crossing-port.js';
export type {
  NewReport,
  ReportSubmission,
  ReportWriter,
  SubmissionOutcome,
} from './report-writer.js';
export { runSqliteWriterThread } from './sqlite/sqlite-writer-thread.js';

export interface ReportWriterOptions {
  /** Told the size of each batch the Kysely back end commits (tests: batches are shared). */
  onCommit?: (size: number) => void;
  /**
   * Given when reports are grouped into issues (ISSUE_GROUPING): the grouper's side of the seam
   * (grouping-port.ts). The Kysely back end hands it each batch it committed; the SQLite file's
   * writer thread gives reports their issue as it moves them, and tells it what that did. What
   * neither groups waits in `grouping_queue` for the background grouper.
   *
   * The Kysely back end does not group inside its own transaction: that holds the grouper's lock
   * from before the insert to the commit, so the transactions in flight (COMMITS_IN_FLIGHT) would
   * not overlap their commits, and on PostgreSQL the bench's ingest falls by a third or more that
   * way where the background grouper costs it under a sixth (docs/scaling.md).
   */
  grouping?: GroupingPort;
  /**
   * Given when an account's quota marks are announced (the notifications): each batch that moves
   * a month's count past 80 % of its quota or to it hands those crossings to the port's hook in
   * its own transaction (quota-crossing-port.ts). On a SQLite file the writer thread's entry
   * holds the hook (the port starts it, unless the grouping port does: the same entry).
   */
  quotaCrossings?: QuotaCrossingPort;
  /**
   * Told of a fault the writer works around but an operator should hear of (the SQLite
   * writer's checkpoint thread stopped: ingest slows, nothing is lost): the server logs it.
   */
  warn?: (message: string) => void;
}

export function createReportWriter(
  database: Database,
  config: Config,
  options: ReportWriterOptions = {},
): ReportWriter {
  const { grouping, quotaCrossings } = options;
  const defaults: StorageDefaults = {
    freeTier: config.freeTierMonthlyReports,
    addressDailyShare: config.ingestLimits.addressDailyShare,
  };
  if (database.sqlitePath !== null && database.sqlitePath !== ':memory:') {
    return createSqliteReportWriter(database.sqlitePath, {
      limits: defaults,
      sync: config.sqliteSync,
      grouping: grouping ?? null,
      startThread: grouping?.startWriterThread ?? quotaCrossings?.startWriterThread,
      warn: options.warn,
    });
  }
  return createGroupCommitWriter(database.kysely, {
    dialect: database.dialect,
    defaults,
    onCommit: options.onCommit,
    onStored: grouping && ((submissions, outcomes) => grouping.stored(submissions, outcomes)),
    quotaCrossings: quotaCrossings?.hook,
  });
}

/**
 * Stores reports as they are, in `reports`, with every counter a stored report keeps
 * (plan-batch.ts REPORT_COUNTERS) but no key lookup and no limits: for seeding and copying data,
 * never for submissions. Runs in the caller's transaction if `db` is one.
 */
export async function importReports(
  db: Kysely<DB>,
  dialect: Dialect,
  reports: readonly NewReport[],
): Promise<void> {
  await runAsync(importSteps(dialect, reports), dialect, async (statement) => {
    const result = await db.executeQuery<Row>(
      CompiledQuery.raw(statement.sql, statement.parameters),
    );
    return result.rows;
  });
}
