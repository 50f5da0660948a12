import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { ReportSubmission, ReportWriter, SubmissionOutcome } from './report-writer.js';
import { type Numbered, packSubmissions, unpackResults } from './sqlite-writer-codec.js';

export interface WriterThreadData {
  path: string;
  freeTier: number | null;
}

/** Messages to the writer thread; submissions packed by sqlite-writer-codec.ts. */
export type ToWriterThread = { type: 'store'; submissions: string } | { type: 'close' };

/** A reply of the writer thread: the packed results of one committed batch. */
export type FromWriterThread = string;

/**
 * The report writer of a SQLite file: a worker thread with its own connection
 * (sqlite-report-worker.ts). better-sqlite3 runs on the calling thread, and storing reports is
 * most of the ingest work: the statements on six b-trees, the commit and its fsync of the WAL.
 * On the event loop, all of it stalled every request in flight; in the thread it runs beside
 * the HTTP work, on the other core (BENCHMARKS.md). The submissions of one event-loop turn
 * travel in one message, and the thread stores everything queued by the time it is free in one
 * transaction (group commit): one fsync per batch, and a 201 only after the commit of its batch.
 *
 * Reads stay on the main connection (WAL: readers never wait for the writer). If the thread
 * dies, the submissions it held fail with a 500 and the next one starts a new thread.
 */
export function createSqliteReportWriter(path: string, freeTier: number | null): ReportWriter {
  const pending = new Map<
    number,
    { resolve(outcome: SubmissionOutcome): void; reject(error: Error): void }
  >();
  let nextSeq = 0;
  let outbox: Numbered<ReportSubmission>[] = [];
  let worker: Worker | null = null;
  let closed = false;
  let drained: (() => void) | null = null;

  function afterSettle(): void {
    if (pending.size === 0) drained?.();
  }

  function failAll(error: Error): void {
    for (const submitter of pending.values()) submitter.reject(error);
    pending.clear();
    afterSettle();
  }

  function spawn(): Worker {
    const thread = startWriterThread({ path, freeTier });
    thread.on('message', (reply: FromWriterThread) => {
      for (const { seq, item } of unpackResults(reply)) {
        const submitter = pending.get(seq);
        if (!submitter) continue;
        pending.delete(seq);
        if ('error' in item) {
          submitter.reject(new Error(`The report could not be stored: ${item.error}`));
        } else {
          submitter.resolve(item.outcome);
        }
      }
      afterSettle();
    });
    thread.on('error', (error) => failAll(error));
    thread.on('exit', (code) => {
      if (worker === thread) worker = null;
      failAll(new Error(`The report writer thread stopped (exit code ${code}).`));
    });
    return thread;
  }

  /** After the I/O of this turn: every request parsed in it travels in one message. */
  function post(): void {
    const message: ToWriterThread = { type: 'store', submissions: packSubmissions(outbox) };
    outbox = [];
    worker ??= spawn();
    worker.postMessage(message);
  }

  return {
    submit(submission) {
      if (closed) return Promise.reject(new Error('The report writer is closed.'));
      const seq = nextSeq++;
      outbox.push({ seq, item: submission });
      if (outbox.length === 1) setImmediate(post);
      return new Promise((resolve, reject) => pending.set(seq, { resolve, reject }));
    },
    async close() {
      closed = true;
      if (pending.size > 0) await new Promise<void>((resolve) => (drained = resolve));
      const thread = worker;
      if (!thread) return;
      const exited = once(thread, 'exit');
      const message: ToWriterThread = { type: 'close' };
      thread.postMessage(message);
      await exited;
    },
  };
}

/**
 * Built code runs the thread's compiled entry. Tests run the TypeScript sources, which a worker
 * cannot load by itself: there the entry is loaded through tsx (a dev dependency).
 */
function startWriterThread(workerData: WriterThreadData): Worker {
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = new URL(`./sqlite-report-worker.${fromSource ? 'ts' : 'js'}`, import.meta.url);
  if (!fromSource) return new Worker(entry, { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)})
    .then((tsx) => tsx.register())
    .then(() => import(${JSON.stringify(entry.href)}));`;
  return new Worker(boot, { eval: true, workerData });
}
