import type { Kysely } from 'kysely';
import type { Dialect } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { createArrivalGrouper } from '../issues/pipeline/index.js';
import { runSqliteWriterThread } from '../reports/write-path/index.js';
import { notifyIssueChanges, notifyQuotaCrossings } from './notification-seam.js';

/**
 * The entry of the server's SQLite writer thread: the write path's thread, given the pipeline's
 * grouper of arriving reports (used when the thread's data says it groups, ISSUE_GROUPING) and
 * the outbox's quota hook; the new and reopened issues, and the quota marks a batch passes, go
 * to the notifications' outbox in the transaction that causes them. The one place the three meet
 * in that thread; started by grouping-seam.ts and quota-seam.ts.
 */
runSqliteWriterThread({
  arrivalGrouper: (db: Kysely<DB>, dialect: Dialect) =>
    createArrivalGrouper(db, dialect, notifyIssueChanges),
  quotaCrossings: notifyQuotaCrossings,
});
