import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteConnection } from '../../../db/sqlite-connection.js';
import type { CheckpointThreadData } from './wal-checkpointer.js';

/**
 * The checkpoint thread (started by wal-checkpointer.ts): a PASSIVE checkpoint of the WAL every
 * `intervalMs`, on a connection of its own, until told to close. A checkpoint that cannot run
 * (another holds the checkpoint lock, the disk refuses) is skipped: the writer's own
 * autocheckpoint is still there behind it.
 */
const port = parentPort!;
const { path, intervalMs } = workerData as CheckpointThreadData;
const sqlite = openSqliteConnection(path, { mustExist: true });
// A checkpoint fsyncs the WAL before copying it and the file after, under NORMAL as FULL.
sqlite.pragma('synchronous = NORMAL');

const timer = setInterval(() => {
  try {
    sqlite.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Skipped this time (see above).
  }
}, intervalMs);

port.on('message', (message: 'close') => {
  if (message !== 'close') return;
  clearInterval(timer);
  sqlite.close();
  port.close();
});
