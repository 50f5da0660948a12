import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.js';

export type TransactionWork<T> = (trx: Transaction<DB>) => Promise<T>;

interface Pending {
  work: TransactionWork<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** Upper bound of one batch, so one COMMIT never holds a very long transaction. */
const MAX_BATCH = 256;

/**
 * Group commit for SQLite. With `synchronous = FULL` every COMMIT waits for an fsync of the WAL,
 * and better-sqlite3 waits on the event-loop thread: one transaction per report capped ingest at
 * about 150 reports/s on the benchmark machine (BENCHMARKS.md). Work queued during one turn of
 * the event loop runs in ONE transaction, and every caller is answered after that COMMIT: the
 * same durability (nothing is acknowledged before its commit), one fsync per batch.
 *
 * Items run one after another inside the batch, so each sees the writes of the ones before it
 * (the quota check stays exact). If any item throws, or the commit fails, the whole batch is
 * rolled back and each item is run again in its own transaction, so a failure reaches only its
 * own caller. Work must therefore only touch the database through `trx`.
 */
export function createGroupCommit(db: Kysely<DB>) {
  const queue: Pending[] = [];
  let draining = false;

  async function runAlone(item: Pending): Promise<void> {
    try {
      item.resolve(await db.transaction().execute(item.work));
    } catch (error) {
      item.reject(error);
    }
  }

  async function runBatch(batch: Pending[]): Promise<void> {
    if (batch.length === 1) return runAlone(batch[0]!);
    let results: unknown[];
    try {
      results = await db.transaction().execute(async (trx) => {
        const out: unknown[] = [];
        for (const item of batch) out.push(await item.work(trx));
        return out;
      });
    } catch {
      for (const item of batch) await runAlone(item);
      return;
    }
    for (const [i, item] of batch.entries()) item.resolve(results[i]);
  }

  async function drain(): Promise<void> {
    try {
      while (queue.length > 0) await runBatch(queue.splice(0, MAX_BATCH));
    } finally {
      draining = false;
    }
  }

  return function groupCommit<T>(work: TransactionWork<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!draining) {
        draining = true;
        // After the I/O of this turn: every request parsed in it joins the batch.
        setImmediate(() => void drain());
      }
    });
  };
}
