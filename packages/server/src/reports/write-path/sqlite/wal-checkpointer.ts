import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../../start-worker.js';

/** How often the checkpoint thread copies the WAL into the file. */
export const CHECKPOINT_MS = 100;

export interface CheckpointThreadData {
  path: string;
  intervalMs: number;
}

export interface WalCheckpointer {
  /** Stops the thread; resolves once it has closed its connection. */
  close(): Promise<void>;
}

/**
 * Checkpoints of the WAL beside the report writer, in a thread of their own
 * (wal-checkpoint-worker.ts). SQLite checkpoints on the connection whose commit takes the WAL
 * past 1,000 pages: the writer's, in its thread, with every store batch queued behind it while
 * it copies ~4 MB of pages into the file and fsyncs the WAL and then the file. Under the
 * bench's ingest that came two or three times a second. Here a PASSIVE checkpoint runs every
 * CHECKPOINT_MS on another connection, beside the writer (a checkpoint takes no write lock):
 * when the writer next begins with the whole WAL copied, SQLite starts the WAL over, and the
 * writer's own autocheckpoint (raised to db/sqlite-connection.ts WAL_AUTOCHECKPOINT_PAGES) is
 * only the bound on the WAL's size. Started by the writer thread, which closes it before its own
 * connection. If the thread fails, checkpoints fall back to the connections that commit, and
 * `onFailure` is told why (the server logs it: ingest slows, nothing is lost).
 */
export function startWalCheckpointer(
  path: string,
  {
    intervalMs = CHECKPOINT_MS,
    onFailure = () => {},
  }: { intervalMs?: number; onFailure?: (reason: string) => void } = {},
): WalCheckpointer {
  let closing = false;
  let failed = false;
  const fail = (reason: string) => {
    if (failed) return;
    failed = true;
    onFailure(reason);
  };
  let thread: Worker | null = startWorker(import.meta.url, 'wal-checkpoint-worker', {
    path,
    intervalMs,
  } satisfies CheckpointThreadData);
  const exited = new Promise<void>((resolve) => {
    thread?.once('exit', (code) => {
      thread = null;
      if (!closing) fail(`the WAL checkpoint thread stopped (exit code ${code})`);
      resolve();
    });
  });
  // A thread that fails ends; checkpoints are the writer's again.
  thread.on('error', (error) => fail(`the WAL checkpoint thread failed: ${error.message}`));
  return {
    async close() {
      closing = true;
      thread?.postMessage('close');
      await exited;
    },
  };
}
