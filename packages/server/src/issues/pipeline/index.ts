import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Dialect } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import type { EventBus } from '../../realtime/event-bus.js';
import type { IssueChangeHook } from '../issue-announcements.js';
import { Grouper, type GrouperOptions } from './grouper.js';
import { type StartGroupingThread, startGroupingThread } from './grouping-thread.js';

/**
 * The grouping pipeline: what feeds the engine (issues/grouping/) the stored reports and writes
 * its decisions. ONE entry: the server's context makes its grouper with createGrouper, and the
 * SQLite writer thread's entry (src/wiring/) gives the writer createArrivalGrouper; both meet the
 * write path only through its port (reports/write-path/grouping-port.ts).
 *
 * Inside: the background grouper and its loop (grouper.ts), where its batches run (in a thread of
 * their own: grouping-thread.ts, grouping-worker.ts; or in process: batch-runner.ts), a batch's
 * transaction (group-batch.ts) over the queue of waiting reports (grouping-queue.ts) and what the
 * write path handed over (stored-inputs.ts), the engine's run over a batch (group-reports.ts,
 * working-issue.ts, pool-cache.ts) and its SQL (grouping.repository.ts); between batches, where
 * they run, the refresh of signatures stored under older term rules (signature-refresh.ts).
 */

export { createArrivalGrouper } from './group-batch.js';
export { Grouper, type GrouperOptions } from './grouper.js';
/** The progress row's lock and the version triage takes and bumps (triage.service.ts). */
export { bumpIssuesVersion, insertIssue, lockGroupingProgress } from './grouping.repository.js';
export type { GroupingThreadData, StartGroupingThread } from './grouping-thread.js';
export { runGroupingThread } from './grouping-worker.js';

export interface CreateGrouperDeps {
  db: Kysely<DB>;
  dialect: Dialect;
  bus: EventBus;
  log: FastifyBaseLogger;
  /**
   * Runs the batches in a thread of their own, with its own connection to this DATABASE_URL
   * (the server); null runs them on `db` (SQLite `:memory:`, which a second connection cannot
   * open, and the test harness's in-process servers).
   */
  thread: { url: string; start?: StartGroupingThread } | null;
  /** Called with each batch's new and reopened issues, in its transaction (the outbox). */
  onChanges?: IssueChangeHook;
  options?: GrouperOptions;
}

/**
 * The background grouper, with its batches' thread started and ready (not the grouper's loop:
 * `start()` it). A thread that cannot start does not stop the server: the grouper retries, and
 * says why.
 */
export async function createGrouper({
  db,
  dialect,
  bus,
  log,
  thread,
  onChanges,
  options,
}: CreateGrouperDeps): Promise<Grouper> {
  const batches = thread ? startGroupingThread({ url: thread.url }, thread.start) : null;
  // Ready before the first request, so the first reports do not wait for it to start.
  await batches?.ready().catch((error: unknown) => {
    log.warn({ err: error }, 'the grouping thread could not start; grouping retries');
  });
  return new Grouper(
    { db, dialect, bus, log, batches: batches ?? undefined, ...(onChanges ? { onChanges } : {}) },
    options,
  );
}
