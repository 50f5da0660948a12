import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { openSqliteConnection } from '../../../db/sqlite-connection.js';
import { kyselyOverConnection } from '../../../db/sqlite-kysely.js';
import { errorCode, errorWithCode } from '../../../errors/storage-fault.js';
import type { ArrivalGrouper, ArrivalGrouperFactory, IssueChange } from '../arrival-grouper.js';
import type { QuotaCrossingHook } from '../quota-crossing-port.js';
import type { ReportSubmission } from '../report-writer.js';
import { createSqliteReportBatch } from './sqlite-report-batch.js';
import type {
  FromWriterThread,
  ToWriterThread,
  WriterThreadData,
} from './sqlite-thread-messages.js';
import { type Numbered, packResults, unpackSubmissions } from './sqlite-writer-codec.js';
import { startWalCheckpointer } from './wal-checkpointer.js';
import { createWalSync, WAL_SYNC_MS, type WalSync } from './wal-sync.js';

/** About the upper bound of one batch, so one COMMIT never holds a very long transaction. */
const MAX_BATCH = 256;

/**
 * The SQLite report writer thread (started by sqlite-report-writer.ts), run by its entry
 * (sqlite-report-worker.ts, or in the server src/wiring/sqlite-writer-worker.ts, with a grouper
 * and the quota crossings' hook): stores the submissions posted to it, in batches, on its own
 * connection, and moves its inbox into `reports`
 * (sqlite-report-batch.ts) when asked, when it holds `inbox.rows` reports, `inbox.ms` after
 * it stopped being empty, and before it closes. With ISSUE_GROUPING on, the move gives each
 * report its issue as it inserts it (`arrivalGrouper`, over Kysely on this connection), a
 * chunk per transaction, with the store batches that came meanwhile run between two chunks.
 * Under `SQLITE_SYNC=normal` (the default) its commits are not fsynced one by one: wal-sync.ts
 * fsyncs the WAL within 50 ms of each.
 */
export function runSqliteWriterThread({
  arrivalGrouper = null,
  quotaCrossings = null,
}: {
  /** Groups the reports the thread moves, when its data says so (ISSUE_GROUPING). */
  arrivalGrouper?: ArrivalGrouperFactory | null;
  /** Told, in each batch's transaction, the quota marks it passes (quota-crossing-port.ts). */
  quotaCrossings?: QuotaCrossingHook | null;
} = {}): void {
  const port = parentPort!;
  const { path, limits, inbox, sync, grouping } = workerData as WriterThreadData;
  const { sqlite, batch } = open();
  let walSync: WalSync | null = null;
  if (sync === 'normal') {
    sqlite.pragma('synchronous = NORMAL');
    walSync = createWalSync(`${path}-wal`, WAL_SYNC_MS, () => {
      // The disk refused an fsync: from now on SQLite fsyncs each commit itself, so a commit that
      // cannot reach the disk fails its own submissions (a 500 with the cause logged).
      sqlite.pragma('synchronous = FULL');
      walSync = null;
    });
  }
  // Checkpoints beside this thread, so that its commits seldom wait for one (wal-checkpointer.ts).
  const checkpointer = startWalCheckpointer(path, {
    onFailure(reason) {
      const message = `${reason}: the report writer checkpoints the WAL itself from now on, which slows ingest (nothing is lost); a restart starts the thread again`;
      const warning: FromWriterThread = { type: 'warning', message };
      port.postMessage(warning);
    },
  });
  let moveTimer: NodeJS.Timeout | null = null;
  /** The move under way: it goes on, a chunk at a time, until the inbox is empty. */
  let moving: Promise<void> | null = null;
  /**
   * While a chunk's or a store batch's transaction runs. Over better-sqlite3 their awaits are all
   * microtasks, so no message can come in the middle; if one ever did, it waits for the
   * transaction instead of starting one inside it.
   */
  let inChunk = false;
  let storing = false;
  const deferred: ToWriterThread[] = [];
  const drain = () => {
    while (!inChunk && !storing && deferred.length > 0) void handle(deferred.shift()!);
  };
  const ready: FromWriterThread = { type: 'ready' };
  port.postMessage(ready);
  // Reports a stopped server left in the inbox.
  void moveInbox();

  /**
   * Opens the file (never creating it: the server's connection did) and proves it can write:
   * a file SQLite may only read opens without an error, and the thread would otherwise start
   * and fail every submission.
   */
  function open() {
    try {
      const sqlite = openSqliteConnection(path, { mustExist: true });
      let grouper: ArrivalGrouper | null = null;
      if (grouping) {
        if (!arrivalGrouper) throw new Error('This writer thread was started without a grouper.');
        grouper = arrivalGrouper(kyselyOverConnection(sqlite), 'sqlite');
      }
      const quota = quotaCrossings && { hook: quotaCrossings, db: kyselyOverConnection(sqlite) };
      const batch = createSqliteReportBatch(sqlite, limits, grouper, quota);
      batch.probeWrite();
      return { sqlite, batch };
    } catch (error) {
      // better-sqlite3's SqliteError reaches the parent thread as a bare { code }: a plain Error
      // keeps its message (the parent fails start-up with it) and its code (503 or 500).
      throw errorWithCode(error instanceof Error ? error.message : String(error), errorCode(error));
    }
  }

  function failure(error: unknown): { error: string; code: string | null } {
    return {
      error: error instanceof Error ? error.message : String(error),
      code: errorCode(error),
    };
  }

  /**
   * Moves the inbox (a move under way goes on until it is empty) and then tells the parent
   * thread, which answers the readers waiting for it: the inbox is empty when `moved` is posted,
   * so it covers every report acknowledged before it. A move asks for no fsync of its own
   * (SQLITE_SYNC=normal): it adds no report, only relocates them. Either the fsync their batches
   * scheduled is still to come, and covers the move too (one fsync covers the whole WAL), or it
   * has run, and a power cut that undoes the move leaves them in the inbox, to be moved at the
   * next start.
   */
  function moveInbox(): Promise<void> {
    if (moveTimer) clearTimeout(moveTimer);
    moveTimer = null;
    moving ??= runMove().finally(() => {
      moving = null;
    });
    return moving;
  }

  async function runMove(): Promise<void> {
    const changes: IssueChange[] = [];
    let groupingError: string | undefined;
    let reply: FromWriterThread;
    try {
      while (batch.inboxRows() > 0) {
        if (!grouping) {
          batch.moveInbox();
          break;
        }
        inChunk = true;
        try {
          changes.push(...(await batch.moveGroupedChunk()));
        } catch (error) {
          // Grouping must never keep reports out of `reports`: they are moved without an issue,
          // and the background grouper gives them one (from `grouping_queue`).
          groupingError = failure(error).error;
          batch.moveInbox();
        } finally {
          inChunk = false;
          drain();
        }
        // The store batches that came meanwhile go first: a 201 waits for one chunk at most.
        if (batch.inboxRows() > 0) await new Promise((resolve) => setImmediate(resolve));
      }
      reply = { type: 'moved', changes, groupingError };
    } catch (error) {
      reply = { type: 'moved', changes, groupingError, ...failure(error) };
    }
    port.postMessage(reply);
  }

  /** Tells the parent whether a write can be committed now (it asks while writes fail). */
  function probe(): void {
    let reply: FromWriterThread = { type: 'probed' };
    try {
      batch.probeWrite();
    } catch (error) {
      reply = { type: 'probed', ...failure(error) };
    }
    port.postMessage(reply);
  }

  port.on('message', (message: ToWriterThread) => {
    if (inChunk || storing) deferred.push(message);
    else void handle(message);
  });

  async function handle(first: ToWriterThread): Promise<void> {
    // Everything posted while the last batch was being committed joins this one.
    const submissions: Numbered<ReportSubmission>[] = [];
    let closing = false;
    let moveAsked = false;
    let probeAsked = false;
    for (let message: ToWriterThread | undefined = first; message; ) {
      if (message.type === 'close') closing = true;
      else if (message.type === 'move') moveAsked = true;
      else if (message.type === 'probe') probeAsked = true;
      else submissions.push(...unpackSubmissions(message.submissions));
      message =
        submissions.length < MAX_BATCH
          ? (receiveMessageOnPort(port)?.message as ToWriterThread | undefined)
          : undefined;
    }
    if (submissions.length > 0) {
      storing = true;
      let results: Awaited<ReturnType<typeof batch.storeBatch>>;
      try {
        results = await batch.storeBatch(submissions.map(({ item }) => item));
      } finally {
        storing = false;
      }
      walSync?.committed();
      const reply: FromWriterThread = packResults(
        submissions.map(({ seq }, i) => ({ seq, item: results[i]! })),
      );
      port.postMessage(reply);
    }
    if (probeAsked) probe();
    // After the results are posted: no 201 waits for a move.
    if (closing) {
      void moveInbox().then(async () => {
        walSync?.close();
        await checkpointer.close();
        sqlite.close();
        port.close();
      });
    } else if (moveAsked || batch.inboxRows() >= inbox.rows) void moveInbox();
    else if (batch.inboxRows() > 0) moveTimer ??= setTimeout(moveInbox, inbox.ms);
    drain();
  }
}
