import type { Worker } from 'node:worker_threads';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { QuotaThreshold } from '../../limits/storage-limits.js';
import type { WriterThreadData } from './sqlite/sqlite-thread-messages.js';

/**
 * The seam between the write path and whoever announces an account's quota (the notifications'
 * outbox). The write path owns this contract and imports nothing of its implementer; src/wiring/
 * joins the two, in the server's context and in the SQLite writer thread.
 *
 * A batch that moves an account's month count past a mark of its quota (limits/storage-limits.ts
 * quotaMarksPassed: 80 % of it, and the quota itself) hands the crossings to the hook IN ITS
 * OWN TRANSACTION, after its writes: the crossing and what the hook writes commit, or roll back,
 * together. A batch that crosses nothing runs no statement for it.
 */
export interface QuotaCrossing {
  accountId: string;
  /** `YYYY-MM` (UTC): the month counted. */
  month: string;
  threshold: QuotaThreshold;
  /** The month's count once the batch commits, and the quota it counts against. */
  used: number;
  quota: number;
  /**
   * `now`: the batch's stored reports passed the mark. `before`: the month was already at or past
   * it when the batch began (a quota lowered during the month; a mark passed before this writer
   * started, announced then or not): handed over by the first such batch of each writer only,
   * and the implementer tells a mark already announced from one that was not.
   */
  passed: 'now' | 'before';
}

/** Called in the batch's transaction (on the SQLite file: the writer thread's connection). */
export type QuotaCrossingHook = (
  trx: Kysely<DB>,
  crossings: readonly QuotaCrossing[],
) => Promise<void>;

export interface QuotaCrossingPort {
  /** The hook the Kysely back end (PostgreSQL, SQLite `:memory:`) calls. */
  hook: QuotaCrossingHook;
  /**
   * Starts a SQLite writer thread whose entry runs `runSqliteWriterThread` with the same hook
   * (src/wiring/sqlite-writer-worker.ts): a thread cannot be handed a function.
   */
  startWriterThread(data: WriterThreadData): Worker;
}
