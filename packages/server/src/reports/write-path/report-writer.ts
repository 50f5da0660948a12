/** A report row as the write path stores it. */
export interface NewReport {
  id: string;
  projectId: string;
  outcome: string;
  toolName: string | null;
  source: string | null;
  details: string;
  metadata: string | null;
  createdAt: Date;
  /** Credentials replaced before storing (reports/redaction/). */
  redactions: number;
}

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
 * (limits/storage-limits.ts) and stores it with its counters, in a transaction shared with the
 * submissions that arrived while the previous one was committing (group commit), committed
 * before the outcome is returned (the 201 is sent only after it). Concurrent submissions, of
 * this process or of another on the same database, can never pass the quota.
 */
export interface ReportWriter {
  submit(submission: ReportSubmission): Promise<SubmissionOutcome>;
  /**
   * Resolves once every report acknowledged so far can be read from `reports`. Only the
   * database's read barrier should call it (no read path by hand): the SQLite back end keeps
   * committed reports in an inbox for a moment (sqlite/sqlite-report-batch.ts) and this moves
   * them; the Kysely back end has nothing to move. Rejects if they cannot be moved.
   */
  flush(): Promise<void>;
  /** Resolves once the writer can store reports; rejects with why it cannot (start-up). */
  ready(): Promise<void>;
  /** Why reports cannot be stored at the moment, or null (for /readyz). */
  unavailable(): string | null;
  /** Waits for submissions under way, then releases what the writer holds. */
  close(): Promise<void>;
}
