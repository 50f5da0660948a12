import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import type { SqliteSync } from '../../../config.js';
import { classifyStorageFault, errorCode, errorWithCode } from '../../../errors/storage-fault.js';
import type { StorageDefaults } from '../../../limits/storage-limits.js';
import { startWorker } from '../../../start-worker.js';
import type { GroupingPort, IssueChange } from '../grouping-port.js';
import type { ReportSubmission, ReportWriter, SubmissionOutcome } from '../report-writer.js';
import type {
  FromWriterThread,
  ToWriterThread,
  WriterThreadData,
} from './sqlite-thread-messages.js';
import { type Numbered, packSubmissions, unpackResults } from './sqlite-writer-codec.js';

/**
 * About a thousand reports per move: fewer cost more page writes per report, more hold the
 * writer longer (~10 ms per thousand). Under a light load, reports wait 100 ms at most, so that
 * anything reading the file besides this server (a backup, sqlite3) finds them in `reports`.
 */
export const INBOX_MOVE = { rows: 1000, ms: 100 };

/** How long a writer thread that failed to start waits before the next attempt, at most. */
const MAX_RETRY_MS = 30_000;

/** While writes fail with a storage fault, how often the thread tries a small write. */
const PROBE_MS = 2000;

/**
 * The report writer of a SQLite file: a worker thread with its own connection
 * (sqlite-writer-thread.ts). better-sqlite3 runs on the calling thread, and storing reports is most
 * of the ingest work: the statements on six b-trees, the commit and its fsync of the WAL. On the
 * event loop, all of it would stall every request in flight; in the thread it runs beside the HTTP
 * work, on the other core (docs/architecture.md, Why it is built this way). The submissions of one
 * event-loop turn travel in one message, and the thread stores everything queued by the time it is
 * free in one transaction (group commit): one fsync per batch, and a 201 only after the commit of
 * its batch.
 *
 * The thread stores into an inbox and moves it into `reports` a thousand at a time
 * (sqlite-report-batch.ts); `flush()` has it move now, for a reader, unless nothing acknowledged
 * since its last move can be there. That move is the only time a reader waits for the writer:
 * reads stay on the main connection (WAL: readers never wait for the writer). The thread starts
 * at once, so `ready()` fails start-up when it cannot open the file. If it dies later, the
 * submissions it held fail with a 500 and a new thread starts. A thread that fails to start is
 * retried after 1 s, then 2, 4 … 30 s; until one starts, submissions fail at once with the cause
 * and `unavailable()` (/readyz) says why, instead of each request spawning a thread that fails.
 * A write that fails with a storage fault (disk full, read-only, I/O error) makes the writer
 * unavailable until a write commits again; the errors keep their SQLite code, so the error
 * handler answers 503 (errors/storage-fault.ts). `startThread` is for tests that need to hold
 * the threads.
 */
export function createSqliteReportWriter(
  path: string,
  {
    limits,
    sync,
    inbox = INBOX_MOVE,
    grouping = null,
    startThread = grouping?.startWriterThread ?? startWriterThread,
    warn = () => {},
  }: {
    limits: StorageDefaults;
    sync: SqliteSync;
    inbox?: WriterThreadData['inbox'];
    /**
     * Given when the thread groups the reports it moves (ISSUE_GROUPING): it starts the thread
     * (through an entry that gives it a grouper) and hears what its grouping did.
     */
    grouping?: GroupingPort | null;
    /**
     * The thread's entry: the server's (the grouping or the quota port's, which give it their
     * hooks), else, by default, the grouping's or one with no hooks (tests of the writer).
     */
    startThread?: (data: WriterThreadData) => Worker;
    /** Told of a fault the thread works around (its checkpoint thread stopped): for the log. */
    warn?: (message: string) => void;
  },
): ReportWriter {
  const pending = new Map<
    number,
    { resolve(outcome: SubmissionOutcome): void; reject(error: Error): void }
  >();
  let nextSeq = 0;
  let outbox: Numbered<ReportSubmission>[] = [];
  let worker: Worker | null = null;
  let closed = false;
  let drained: (() => void) | null = null;
  /** Why the last thread could not start, while no thread has started since. */
  let startFailure: Error | null = null;
  /**
   * The storage fault the last write hit (disk full, read-only, I/O error), until a write
   * commits again: /readyz is not ready meanwhile. Submissions still go to the thread: the
   * first one that commits ends it.
   */
  let fault: Error | null = null;
  let probeTimer: NodeJS.Timeout | null = null;
  let retryMs = 0;
  let retryTimer: NodeJS.Timeout | null = null;
  /** Whether a report acknowledged as stored may be in the thread's inbox, not in `reports`. */
  let unmoved = true;
  /** Readers waiting for the next move of the inbox (flush). */
  let moveWaiters: { resolve(): void; reject(error: Error): void }[] = [];
  // Settled by the first thread that starts or fails to; later calls are no-ops.
  let firstStart!: { resolve(): void; reject(error: Error): void };
  const firstStarted = new Promise<void>((resolve, reject) => {
    firstStart = { resolve, reject };
  });
  // ready() may never be called: its rejection is for whoever asks, not an unhandled one.
  firstStarted.catch(() => {});

  function afterSettle(): void {
    if (pending.size === 0) drained?.();
  }

  function failAll(error: Error): void {
    for (const submitter of pending.values()) submitter.reject(error);
    pending.clear();
    afterSettle();
    settleMoveWaiters(error);
  }

  function settleMoveWaiters(error: Error | null): void {
    const waiters = moveWaiters;
    moveWaiters = [];
    for (const waiter of waiters) {
      if (error) waiter.reject(error);
      else waiter.resolve();
    }
  }

  /** A failed write: a storage fault makes the writer unavailable until a write commits. */
  function wroteWith(error: Error | null): void {
    if (!error) {
      fault = null;
      if (probeTimer) clearInterval(probeTimer);
      probeTimer = null;
      return;
    }
    if (!classifyStorageFault(error)) return;
    fault = error;
    if (probeTimer || closed) return;
    // While nobody submits (a load balancer stops sending to an instance that is not ready),
    // probes find out when the cause is gone.
    probeTimer = setInterval(() => {
      const message: ToWriterThread = { type: 'probe' };
      worker?.postMessage(message);
    }, PROBE_MS);
    probeTimer.unref();
  }

  function started(): void {
    startFailure = null;
    retryMs = 0;
    firstStart.resolve();
  }

  function failedToStart(cause: unknown): void {
    const reason = cause instanceof Error ? cause.message : String(cause);
    // With the cause's code (SQLITE_READONLY, SQLITE_CANTOPEN…): submissions meanwhile are 503s.
    startFailure = errorWithCode(
      `The report writer could not open ${path}: ${reason}`,
      errorCode(cause),
    );
    firstStart.reject(startFailure);
    failAll(startFailure);
    if (closed) return;
    retryMs = Math.min(MAX_RETRY_MS, retryMs * 2 || 1000);
    retryTimer = setTimeout(() => {
      retryTimer = null;
      worker ??= spawn();
    }, retryMs);
    retryTimer.unref();
  }

  function spawn(): Worker {
    const thread = startThread({ path, limits, sync, inbox, grouping: grouping !== null });
    let ready = false;
    thread.on('message', (reply: FromWriterThread) => {
      if (typeof reply !== 'string') {
        if (reply.type === 'ready') {
          ready = true;
          started();
        } else if (reply.type === 'warning') {
          warn(reply.message);
        } else if (reply.type === 'probed') {
          wroteWith(
            reply.error === undefined
              ? null
              : errorWithCode(`A write probe failed: ${reply.error}`, reply.code),
          );
        } else if (reply.error === undefined) {
          arrived(reply);
          // Messages arrive in order: this move covers every report acknowledged before it.
          unmoved = false;
          settleMoveWaiters(null);
        } else {
          arrived(reply);
          const error = errorWithCode(
            `Stored reports could not be moved into reports: ${reply.error}`,
            reply.code,
          );
          wroteWith(error);
          settleMoveWaiters(error);
        }
        return;
      }
      for (const { seq, item } of unpackResults(reply)) {
        const submitter = pending.get(seq);
        if (!submitter) continue;
        pending.delete(seq);
        if ('error' in item) {
          const error = errorWithCode(`The report could not be stored: ${item.error}`, item.code);
          wroteWith(error);
          submitter.reject(error);
        } else {
          if (item.outcome.status === 'stored') {
            unmoved = true;
            wroteWith(null);
          }
          submitter.resolve(item.outcome);
        }
      }
      afterSettle();
    });
    // An error comes before the thread's exit; a thread that stops before starting, with or
    // without one, is a failed start.
    let startError: unknown = null;
    thread.on('error', (error) => {
      if (ready) failAll(error);
      else startError = error;
    });
    thread.on('exit', (code) => {
      if (worker === thread) worker = null;
      if (!ready) {
        return failedToStart(startError ?? new Error(`the thread stopped (exit code ${code})`));
      }
      failAll(new Error(`The report writer thread stopped (exit code ${code}).`));
      // Died after starting: its successor starts now.
      if (!closed) worker = spawn();
    });
    return thread;
  }

  /** What a move's grouping did: issues to announce, and why it failed if it did. */
  function arrived(reply: { changes: IssueChange[]; groupingError?: string }): void {
    if (reply.changes.length > 0) grouping?.announce(reply.changes);
    if (reply.groupingError !== undefined) grouping?.failed(reply.groupingError);
  }

  /** After the I/O of this turn: every request parsed in it travels in one message. */
  function post(): void {
    // A thread that failed to start has already failed these submissions.
    if (startFailure) {
      outbox = [];
      return;
    }
    const message: ToWriterThread = { type: 'store', submissions: packSubmissions(outbox) };
    outbox = [];
    worker ??= spawn();
    worker.postMessage(message);
  }

  worker = spawn();

  return {
    submit(submission) {
      if (closed) return Promise.reject(new Error('The report writer is closed.'));
      if (startFailure) return Promise.reject(startFailure);
      const seq = nextSeq++;
      outbox.push({ seq, item: submission });
      if (outbox.length === 1) setImmediate(post);
      return new Promise((resolve, reject) => pending.set(seq, { resolve, reject }));
    },
    flush() {
      // Without a thread nothing can be moved: readers get what `reports` holds.
      if (!unmoved || startFailure || !worker) return Promise.resolve();
      const thread = worker;
      return new Promise<void>((resolve, reject) => {
        moveWaiters.push({ resolve, reject });
        if (moveWaiters.length === 1) {
          const message: ToWriterThread = { type: 'move' };
          thread.postMessage(message);
        }
      });
    },
    ready: () => firstStarted,
    unavailable: () => startFailure?.message ?? fault?.message ?? null,
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      if (probeTimer) clearInterval(probeTimer);
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
 * A writer thread that does not group (sqlite-report-worker.ts); tests pass their own starter
 * around it.
 */
export function startWriterThread(workerData: WriterThreadData): Worker {
  return startWorker(import.meta.url, 'sqlite-report-worker', workerData);
}
