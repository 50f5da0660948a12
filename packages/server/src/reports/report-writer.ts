import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import type { StorageDefaults } from '../limits/storage-limits.js';
import type { NewReport } from './report.repository.js';
import { createSqliteReportWriter } from './sqlite-report-writer.js';
import { createTransactionReportWriter } from './transaction-report-writer.js';

/** A report to store: its row (without the project, which the key decides) and usage month. */
export interface ReportSubmission {
  /** A well-formed ingest key (format checked by the route); not yet looked up. */
  ingestKey: string;
  /** `YYYY-MM` (UTC) of the usage counter the report counts against. */
  month: string;
  /** `YYYY-MM-DD` (UTC) and the client address (limits/client-address.ts) it counts against. */
  day: string;
  address: string;
  report: Omit<NewReport, 'projectId'>;
}

export type SubmissionOutcome =
  | { status: 'stored'; projectId: string }
  /** No active key: never issued, or rotated. */
  | { status: 'unknown_key' }
  | { status: 'quota_exceeded'; limit: number }
  /** The project's monthly cap, or the address's daily share (limits/storage-limits.ts). */
  | { status: 'project_cap' | 'address_daily'; projectId: string; limit: number };

/**
 * The write path of POST /v1/reports: looks the ingest key up, counts the report against the
 * account's monthly quota, the project's cap and the address's daily share
 * (limits/storage-limits.ts) and stores it with its facet counters, all in one transaction that is
 * committed before the outcome is returned (the 201 is sent only after it). Concurrent
 * submissions can never pass the quota.
 */
export interface ReportWriter {
  submit(submission: ReportSubmission): Promise<SubmissionOutcome>;
  /**
   * Resolves once every report acknowledged so far can be read from `reports`: read paths call
   * it first. The SQLite writer keeps committed reports in an inbox for a moment
   * (sqlite-report-batch.ts); this moves them. Rejects if they cannot be moved.
   */
  flush(): Promise<void>;
  /** Resolves once the writer can store reports; rejects with why it cannot (start-up). */
  ready(): Promise<void>;
  /** Why reports cannot be stored at the moment, or null (for /readyz). */
  unavailable(): string | null;
  /** Waits for submissions under way, then releases what the writer holds. */
  close(): Promise<void>;
}

/**
 * A SQLite file gets its own writer thread (sqlite-report-writer.ts); PostgreSQL, and SQLite
 * `:memory:` (which a second connection cannot open), write through Kysely transactions.
 */
export function createReportWriter(database: Database, config: Config): ReportWriter {
  const limits: StorageDefaults = {
    freeTier: config.freeTierMonthlyReports,
    addressDailyShare: config.ingestLimits.addressDailyShare,
  };
  if (database.sqlitePath !== null && database.sqlitePath !== ':memory:') {
    return createSqliteReportWriter(database.sqlitePath, { limits, sync: config.sqliteSync });
  }
  return createTransactionReportWriter(database.kysely, limits);
}
