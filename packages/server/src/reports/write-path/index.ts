import { CompiledQuery, type Kysely } from 'kysely';
import type { Config } from '../../config.js';
import type { Database, Dialect } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import type { StorageDefaults } from '../../limits/storage-limits.js';
import { importSteps, type Row, runAsync } from './batch-steps.js';
import { createGroupCommitWriter } from './group-commit-writer.js';
import type {
  NewReport,
  ReportSubmission,
  ReportWriter,
  SubmissionOutcome,
} from './report-writer.js';
import { type ArrivalListener, createSqliteReportWriter } from './sqlite/sqlite-report-writer.js';

/**
 * The write path of reports: ONE entry point. One writer with two storage back ends that run the
 * same steps (batch-steps.ts) and rules (plan-batch.ts) over the same SQL (batch-statements.ts):
 *
 * - a SQLite file: a writer thread with its own connection, an inbox and a deferred WAL fsync
 *   (sqlite/, sealed: nothing outside this folder knows of them);
 * - PostgreSQL, and SQLite `:memory:` (which a second connection cannot open): group commit over
 *   Kysely transactions (group-commit-writer.ts).
 */

export type {
  NewReport,
  ReportSubmission,
  ReportWriter,
  SubmissionOutcome,
} from './report-writer.js';
export type { ArrivalListener } from './sqlite/sqlite-report-writer.js';

export interface ReportWriterOptions {
  /** Told the size of each batch the Kysely back end commits (tests: batches are shared). */
  onCommit?: (size: number) => void;
  /**
   * Told each batch the Kysely back end committed (its submissions and their outcomes): the
   * background grouper groups the stored reports from this instead of reading them back
   * (issues/stored-inputs.ts). The SQLite file's writer groups its reports itself (`grouping`).
   */
  onStored?: (
    submissions: readonly ReportSubmission[],
    outcomes: readonly SubmissionOutcome[],
  ) => void;
  /**
   * Given when the writer should give reports their issue as it stores them (ISSUE_GROUPING):
   * told what grouping did. The SQLite file's writer does; the others leave reports to the
   * background grouper (issues/grouper.ts), which also groups what the writer could not.
   * Grouping inside the group commit's transaction was tried (2026-11-25) and measured worse
   * on PostgreSQL: it holds the grouper's lock from before the insert to the commit, so the two
   * transactions in flight (COMMITS_IN_FLIGHT) no longer overlap their commits, and its five
   * round trips wait for the busy event loop inside that window. The bench's ingest fell 33–49 %
   * (3,900–4,100 → 2,100–2,600 req/s); with the background grouper's update, 7–39 % that hour.
   * An optimistic form without the lock (2026-11-27: each batch grouped from kept pools, its
   * one statement written only if the grouping version held) cost 25–39 % where the grouper
   * cost 6–15 % (docs/scaling.md).
   */
  grouping?: ArrivalListener;
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
  const defaults: StorageDefaults = {
    freeTier: config.freeTierMonthlyReports,
    addressDailyShare: config.ingestLimits.addressDailyShare,
  };
  if (database.sqlitePath !== null && database.sqlitePath !== ':memory:') {
    return createSqliteReportWriter(database.sqlitePath, {
      limits: defaults,
      sync: config.sqliteSync,
      grouping: options.grouping ?? null,
      warn: options.warn,
    });
  }
  return createGroupCommitWriter(database.kysely, {
    dialect: database.dialect,
    defaults,
    onCommit: options.onCommit,
    onStored: options.onStored,
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
