import type { Worker } from 'node:worker_threads';
import type { IssueChange } from './arrival-grouper.js';
import type { ReportSubmission, SubmissionOutcome } from './report-writer.js';
import type { WriterThreadData } from './sqlite/sqlite-thread-messages.js';

/**
 * The seam between the write path and grouping. The write path owns this contract and never
 * imports the grouper: issues/pipeline/ implements it, and src/wiring/ joins the two (in the
 * server's context and in the SQLite writer thread). What the write path hands over, and when:
 *
 * - every back end but the SQLite file: each committed batch, to `stored` (the grouper groups
 *   those reports without reading them back);
 * - the SQLite file: its writer thread groups the reports as it moves its inbox into `reports`,
 *   in the move's transaction, with the ArrivalGrouper the thread's entry gives it
 *   (`startWriterThread`); the main thread is told what that grouping did (`announce`, `failed`).
 *
 * Reports neither grouped nor handed over are queued in `grouping_queue`
 * (db/grouping-queue-row.ts), where the grouper finds them.
 */
export interface GroupingPort {
  /** A batch committed: its submissions and their outcomes (those `stored` are in `reports`). */
  stored(submissions: readonly ReportSubmission[], outcomes: readonly SubmissionOutcome[]): void;
  /** The issues the writer thread's grouping created or reopened, once committed. */
  announce(changes: readonly IssueChange[]): void;
  /** Why the writer thread could not group a chunk: it moved it without issues, queued. */
  failed(reason: string): void;
  /**
   * Starts a SQLite writer thread whose entry runs `runSqliteWriterThread` with an
   * ArrivalGrouperFactory (src/wiring/sqlite-writer-worker.ts).
   */
  startWriterThread(data: WriterThreadData): Worker;
}

export type {
  ArrivalGrouper,
  ArrivalGrouperFactory,
  Arrivals,
  GroupArrivals,
  IssueChange,
  ReportToGroup,
} from './arrival-grouper.js';
