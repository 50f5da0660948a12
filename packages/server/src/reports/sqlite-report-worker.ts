import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { openSqliteConnection } from '../db/sqlite-connection.js';
import type { ReportSubmission } from './report-writer.js';
import { createSqliteReportBatch } from './sqlite-report-batch.js';
import type { FromWriterThread, ToWriterThread, WriterThreadData } from './sqlite-report-writer.js';
import { type Numbered, packResults, unpackSubmissions } from './sqlite-writer-codec.js';

/**
 * The SQLite report writer thread (started by sqlite-report-writer.ts): stores the submissions
 * posted to it, in batches, on its own connection. Imports nothing but better-sqlite3 and
 * the batch it runs.
 */

/** About the upper bound of one batch, so one COMMIT never holds a very long transaction. */
const MAX_BATCH = 256;

const port = parentPort!;
const { path, freeTier } = workerData as WriterThreadData;
const { sqlite, storeBatch } = open();
const ready: FromWriterThread = { type: 'ready' };
port.postMessage(ready);

function open() {
  try {
    const sqlite = openSqliteConnection(path);
    return { sqlite, storeBatch: createSqliteReportBatch(sqlite, freeTier) };
  } catch (error) {
    // better-sqlite3's SqliteError reaches the parent thread as a bare { code }: a plain Error
    // keeps its message (the parent fails start-up with it).
    throw new Error(error instanceof Error ? error.message : String(error));
  }
}

port.on('message', (first: ToWriterThread) => {
  // Everything posted while the last batch was being committed joins this one.
  const batch: Numbered<ReportSubmission>[] = [];
  let closing = false;
  for (let message: ToWriterThread | undefined = first; message; ) {
    if (message.type === 'close') closing = true;
    else batch.push(...unpackSubmissions(message.submissions));
    message =
      batch.length < MAX_BATCH
        ? (receiveMessageOnPort(port)?.message as ToWriterThread | undefined)
        : undefined;
  }
  if (batch.length > 0) {
    const results = storeBatch(batch.map(({ item }) => item));
    const reply: FromWriterThread = packResults(
      batch.map(({ seq }, i) => ({ seq, item: results[i]! })),
    );
    port.postMessage(reply);
  }
  if (closing) {
    sqlite.close();
    port.close();
  }
});
