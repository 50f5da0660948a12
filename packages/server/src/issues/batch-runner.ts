import type { Kysely } from 'kysely';
import type { Dialect } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { type BatchResult, groupBatch } from './group-batch.js';

/** Where the grouper's batches run: in this thread, or in a thread of their own. */
export interface BatchRunner {
  /** Groups the next `limit` reports in one transaction (group-batch.ts); what it changed. */
  group(limit: number, now: Date): Promise<BatchResult>;
  close(): Promise<void>;
}

/**
 * Batches on the caller's connection and event loop: SQLite `:memory:` (which a second
 * connection cannot open), tests, and the thread of grouping-thread.ts itself.
 */
export function inProcessBatches(db: Kysely<DB>, dialect: Dialect): BatchRunner {
  return {
    group: (limit, now) => db.transaction().execute((trx) => groupBatch(trx, dialect, limit, now)),
    close: async () => {},
  };
}
