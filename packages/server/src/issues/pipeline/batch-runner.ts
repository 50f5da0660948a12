import type { Kysely } from 'kysely';
import type { Dialect } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import type { IssueChangeHook } from '../issue-announcements.js';
import { type BatchResult, DEFAULT_ENGINE, groupBatch } from './group-batch.js';
import { anyReportWaiting, type WaitingScan } from './grouping-queue.js';
import { PoolCache } from './pool-cache.js';
import { type RefreshRound, SignatureRefresh } from './signature-refresh.js';
import { KnownInputs, type StoredBatch } from './stored-inputs.js';

/** Where the grouper's batches run: in this thread, or in a thread of their own. */
export interface BatchRunner {
  /**
   * Groups the next `limit` reports in one transaction (group-batch.ts); what it changed.
   * `stored`: reports the write path stored since the last call, whose input the batches then
   * need not read back (stored-inputs.ts).
   */
  group(limit: number, now: Date, stored?: readonly StoredBatch[]): Promise<BatchResult>;
  /**
   * A round of the refresh of signatures stored under older term rules (signature-refresh.ts),
   * between batches: what it wrote, and whether nothing stale is left.
   */
  refresh(): Promise<RefreshRound>;
  close(): Promise<void>;
}

/**
 * How often a round looks for waiting reports from the start of their index (`all`) instead of
 * from a little before the last grouped report (`recent`, grouping-queue.ts WaitingScan):
 * the longest a report stored well behind the others (a stalled commit, an instance's clock
 * running behind) waits for its issue. The first round of a runner scans all.
 */
const FULL_SCAN_MS = 30_000;

/**
 * Batches on the caller's connection and event loop: SQLite `:memory:` (which a second
 * connection cannot open), tests, and the thread of grouping-thread.ts itself. The candidates
 * one batch read are kept for the next while no one else writes issues (pool-cache.ts).
 */
export function inProcessBatches(
  db: Kysely<DB>,
  dialect: Dialect,
  {
    fullScanMs = FULL_SCAN_MS,
    onChanges,
  }: { fullScanMs?: number; onChanges?: IssueChangeHook | undefined } = {},
): BatchRunner {
  const cache = new PoolCache();
  const known = new KnownInputs();
  const refresh = new SignatureRefresh();
  let fullScanAt = 0;
  /** The last batch was whole: more reports are likely waiting. */
  let whole = false;
  return {
    async group(limit, now, stored = []) {
      known.add(stored);
      const scan: WaitingScan = Date.now() >= fullScanAt ? 'all' : 'recent';
      // A read first, outside any transaction: a batch's transaction takes the lock every
      // grouper and triage share, and on SQLite the file's one write lock, which the report
      // writer then waits for (its busy handler sleeps a millisecond or more). On SQLite the
      // writer groups arriving reports itself, so nearly every round here finds nothing. After
      // a whole batch (a backlog, or PostgreSQL under load) it would find some: not asked.
      if (!whole && !(await anyReportWaiting(db, dialect, scan))) {
        if (scan === 'all') fullScanAt = Date.now() + fullScanMs;
        return { grouped: 0, changes: [], lastStoredAt: null };
      }
      try {
        const result = await db
          .transaction()
          .execute((trx) =>
            groupBatch(trx, dialect, limit, now, DEFAULT_ENGINE, cache, scan, known, onChanges),
          );
        cache.committed();
        whole = result.grouped >= limit;
        // The oldest waiting reports were in this batch: the next full scan can wait. (None
        // grouped: another instance held the lock, and the next round scans all again.)
        if (scan === 'all' && result.grouped > 0) fullScanAt = Date.now() + fullScanMs;
        return result;
      } catch (error) {
        cache.forget();
        whole = false;
        throw error;
      }
    },
    // Its writes bump the issues version: this runner's kept candidates are read again.
    refresh: () => refresh.round(db, dialect),
    close: async () => {},
  };
}
