import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { openSqliteConnection } from '../../../db/sqlite-connection.js';
import { errorCode, errorWithCode } from '../../../errors/storage-fault.js';
import type { ReportSubmission } from '../report-writer.js';
import { createSqliteReportBatch } from './sqlite-report-batch.js';
import type {
  FromWriterThread,
  ToWriterThread,
  WriterThreadData,
} from './sqlite-thread-messages.js';
import { type Numbered, packResults, unpackSubmissions } from './sqlite-writer-codec.js';
import { createWalSync, WAL_SYNC_MS, type WalSync } from './wal-sync.js';

/**
 * The SQLite report writer thread (started by sqlite-report-writer.ts): stores the submissions
 * posted to it, in batches, on its own connection, and moves its inbox into `reports`
 * (sqlite-report-batch.ts) when asked, when it holds `inbox.rows` reports, `inbox.ms` after
 * it stopped being empty, and before it closes. Under `SQLITE_SYNC=normal` (the default) its
 * commits are not fsynced one by one: wal-sync.ts fsyncs the WAL within 50 ms of each. Imports
 * nothing but better-sqlite3, node:fs and the batch it runs.
 */

/** About the upper bound of one batch, so one COMMIT never holds a very long transaction. */
const MAX_BATCH = 256;

const port = parentPort!;
const { path, limits, inbox, sync } = workerData as WriterThreadData;
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
let moveTimer: NodeJS.Timeout | null = null;
const ready: FromWriterThread = { type: 'ready' };
port.postMessage(ready);
// Reports a stopped server left in the inbox.
moveInbox();

/**
 * Opens the file (never creating it: the server's connection did) and proves it can write:
 * a file SQLite may only read opens without an error, and the thread would otherwise start
 * and fail every submission (issue 16, finding 5).
 */
function open() {
  try {
    const sqlite = openSqliteConnection(path, { mustExist: true });
    const batch = createSqliteReportBatch(sqlite, limits);
    batch.probeWrite();
    return { sqlite, batch };
  } catch (error) {
    // better-sqlite3's SqliteError reaches the parent thread as a bare { code }: a plain Error
    // keeps its message (the parent fails start-up with it) and its code (503 or 500).
    throw errorWithCode(error instanceof Error ? error.message : String(error), errorCode(error));
  }
}

function failure(error: unknown): { error: string; code: string | null } {
  return { error: error instanceof Error ? error.message : String(error), code: errorCode(error) };
}

/**
 * Moves the inbox and tells the parent thread, which answers the readers waiting for it. A move
 * asks for no fsync of its own (SQLITE_SYNC=normal): it adds no report, only relocates them.
 * Either the fsync their batches scheduled is still to come, and covers the move too (one fsync
 * covers the whole WAL), or it has run, and a power cut that undoes the move leaves them in the
 * inbox, to be moved at the next start.
 */
function moveInbox(): void {
  if (moveTimer) clearTimeout(moveTimer);
  moveTimer = null;
  let reply: FromWriterThread = { type: 'moved' };
  try {
    batch.moveInbox();
  } catch (error) {
    reply = { type: 'moved', ...failure(error) };
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

port.on('message', (first: ToWriterThread) => {
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
    const results = batch.storeBatch(submissions.map(({ item }) => item));
    walSync?.committed();
    const reply: FromWriterThread = packResults(
      submissions.map(({ seq }, i) => ({ seq, item: results[i]! })),
    );
    port.postMessage(reply);
  }
  if (probeAsked) probe();
  // After the results are posted: no 201 waits for a move.
  if (closing || moveAsked || batch.inboxRows() >= inbox.rows) moveInbox();
  else if (batch.inboxRows() > 0) moveTimer ??= setTimeout(moveInbox, inbox.ms);
  if (closing) {
    walSync?.close();
    sqlite.close();
    port.close();
  }
});
