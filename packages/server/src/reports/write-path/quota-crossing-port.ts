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
 * quotaThresholdsCrossed: 80 % of it, and the quota itself) hands the crossings to the hook IN
 * ITS OWN TRANSACTION, after its writes: the crossing and what the hook writes commit, or roll
 * back, together. A batch that crosses nothing runs no statement for it.
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
   * `count`: the batch's stored reports passed the mark. `refusal`: the batch refused a report
   * of a month already at or past its quota that no batch of this writer crossed (a quota lowered
   * below the month's count, a month reached before a restart): `reached`, announced by the first
   * such batch of each writer; the implementer tells it from one already announced.
   */
  cause: 'count' | 'refusal';
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
