import type { Kysely } from 'kysely';
import type { Dialect } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { type BatchResult, DEFAULT_ENGINE, groupBatch } from './group-batch.js';
import { anyReportWaiting } from './grouping.repository.js';
import { PoolCache } from './pool-cache.js';

/** Where the grouper's batches run: in this thread, or in a thread of their own. */
export interface BatchRunner {
  /** Groups the next `limit` reports in one transaction (group-batch.ts); what it changed. */
  group(limit: number, now: Date): Promise<BatchResult>;
  close(): Promise<void>;
}

/**
 * Batches on the caller's connection and event loop: SQLite `:memory:` (which a second
 * connection cannot open), tests, and the thread of grouping-thread.ts itself. The candidates
 * one batch read are kept for the next while no one else writes issues (pool-cache.ts).
 */
export function inProcessBatches(db: Kysely<DB>, dialect: Dialect): BatchRunner {
  const cache = new PoolCache();
  return {
    async group(limit, now) {
      // A read first, outside any transaction: a batch's transaction takes the lock every
      // grouper and triage share, and on SQLite the file's one write lock, which the report
      // writer then waits for (its busy handler sleeps a millisecond or more). On SQLite the
      // writer groups arriving reports itself, so nearly every round here finds nothing.
      if (!(await anyReportWaiting(db))) return { grouped: 0, changes: [], lastStoredAt: null };
      try {
        const result = await db
          .transaction()
          .execute((trx) => groupBatch(trx, dialect, limit, now, DEFAULT_ENGINE, cache));
        cache.committed();
        return result;
      } catch (error) {
        cache.forget();
        throw error;
      }
    },
    close: async () => {},
  };
}
