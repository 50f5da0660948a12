import type { SqliteSync } from '../../../config.js';
import type { StorageDefaults } from '../../../limits/storage-limits.js';
import type { IssueChange } from '../arrival-grouper.js';
import type { SubmissionOutcome } from '../report-writer.js';

/**
 * What the SQLite writer (sqlite-report-writer.ts) and its thread (sqlite-writer-thread.ts) send
 * each other. Types only, in a file of their own, so neither imports the other.
 */

/**
 * What one submission of a batch came to: an outcome, or the error it hit (its message, and
 * its SQLite code, which decides between a 503 and a 500: errors/storage-fault.ts).
 */
export type BatchResult = { outcome: SubmissionOutcome } | { error: string; code: string | null };

export interface WriterThreadData {
  path: string;
  limits: StorageDefaults;
  /** `SQLITE_SYNC`: `full` fsyncs each commit before its 201, `normal` within 50 ms of it. */
  sync: SqliteSync;
  /** When the thread moves its inbox into `reports` unasked: at this many reports, or this long
   * after a first report entered it. */
  inbox: { rows: number; ms: number };
  /** Whether moving the inbox gives each report its issue (ISSUE_GROUPING). */
  grouping: boolean;
}

/** Messages to the writer thread; submissions packed by sqlite-writer-codec.ts. */
export type ToWriterThread =
  | { type: 'store'; submissions: string }
  | { type: 'move' }
  | { type: 'probe' }
  | { type: 'close' };

/**
 * Messages from the writer thread: `ready` once its connection is open, the packed results of
 * each committed batch, `moved` after each move of its inbox (with the issues its grouping
 * created or reopened, and why grouping failed if it did), `probed` after each write probe,
 * with why it failed if it did (message and SQLite code), and `warning` for a fault the writer
 * works around but an operator should hear of (its checkpoint thread stopped).
 */
export type FromWriterThread =
  | { type: 'ready' }
  | { type: 'warning'; message: string }
  | { type: 'probed'; error?: string; code?: string | null }
  | {
      type: 'moved';
      error?: string;
      code?: string | null;
      changes: IssueChange[];
      groupingError?: string;
    }
  | string;
