import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { openSqliteConnection } from '../db/sqlite-connection.js';
import { createSqliteReportBatch } from './sqlite-report-batch.js';
import type { FromWriterThread, ToWriterThread, WriterThreadData } from './sqlite-report-writer.js';

/**
 * The SQLite report writer thread (started by sqlite-report-writer.ts): stores the submissions
 * posted to it, in batches, on its own connection. Imports nothing but better-sqlite3 and
 * the batch it runs.
 */

/** About the upper bound of one batch, so one COMMIT never holds a very long transaction. */
const MAX_BATCH = 256;

const port = parentPort!;
const { path, freeTier } = workerData as WriterThreadData;
const sqlite = openSqliteConnection(path);
const storeBatch = createSqliteReportBatch(sqlite, freeTier);

port.on('message', (first: ToWriterThread) => {
  // Everything posted while the last batch was being committed joins this one.
  const messages = [first];
  let size = first.type === 'store' ? first.submissions.length : 0;
  while (size < MAX_BATCH) {
    const next = receiveMessageOnPort(port);
    if (!next) break;
    const message = next.message as ToWriterThread;
    messages.push(message);
    if (message.type === 'store') size += message.submissions.length;
  }
  const batch = messages.flatMap((message) =>
    message.type === 'store' ? message.submissions : [],
  );
  if (batch.length > 0) {
    const results = storeBatch(batch.map((item) => item.submission));
    const reply: FromWriterThread = batch.map((item, i) => ({ seq: item.seq, ...results[i]! }));
    port.postMessage(reply);
  }
  if (messages.some((message) => message.type === 'close')) {
    sqlite.close();
    port.close();
  }
});
