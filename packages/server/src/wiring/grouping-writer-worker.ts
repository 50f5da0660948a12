import type { Kysely } from 'kysely';
import type { Dialect } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { createArrivalGrouper } from '../issues/pipeline/index.js';
import { runSqliteWriterThread } from '../reports/write-path/index.js';
import { notifyIssueChanges } from './notification-seam.js';

/**
 * The entry of the SQLite writer thread when reports are grouped into issues: the write path's
 * thread, given the pipeline's grouper of arriving reports, whose new and reopened issues go to
 * the notifications' outbox in the same transaction. The one place the three meet in that
 * thread; started by grouping-seam.ts.
 */
runSqliteWriterThread((db: Kysely<DB>, dialect: Dialect) =>
  createArrivalGrouper(db, dialect, notifyIssueChanges),
);
