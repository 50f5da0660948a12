import type { Worker } from 'node:worker_threads';
import { errorWithCode } from '../../errors/storage-fault.js';
import { startWorker } from '../../start-worker.js';
import type { BatchRunner } from './batch-runner.js';
import type { BatchResult } from './group-batch.js';
import type { RefreshRound } from './signature-refresh.js';
import type { StoredBatch } from './stored-inputs.js';

/** What the server's thread posts to the grouping thread. */
export type ToGroupingThread =
  | { type: 'group'; id: number; limit: number; now: string; stored: readonly StoredBatch[] }
  | { type: 'refresh'; id: number }
  | { type: 'close' };

/** What the grouping thread answers. */
export type FromGroupingThread =
  | { type: 'ready' }
  | { type: 'grouped'; id: number; result: BatchResult }
  | { type: 'refreshed'; id: number; result: RefreshRound }
  | { type: 'failed'; id: number; error: string; code: string | null };

export interface GroupingThreadData {
  /** The server's DATABASE_URL: the thread opens its own connection (or pool) to it. */
  url: string;
}

/** Starts the thread's entry: by default grouping-thread-entry.ts; src/wiring/ gives its own. */
export type StartGroupingThread = (data: GroupingThreadData) => Worker;

interface Waiting {
  /** With the answer's result: a batch's, or a refresh round's (the request's kind, by its id). */
  resolve(result: BatchResult | RefreshRound): void;
  reject(error: unknown): void;
}

/**
 * The grouper's batches in a worker thread with its own database connection
 * (grouping-worker.ts). The engine's work on a batch (fingerprints, similarity: tens of
 * milliseconds for a batch of new reports) then never holds the server's event loop, and a
 * SQLite write lock it waits for blocks that thread, not the requests. On the event loop it
 * would cost about a quarter of SQLite ingest throughput in the bench; here about an eighth.
 * The thread starts at once, so that it is ready when
 * the first reports come; if it fails or exits, the batches it had fail (the grouper retries
 * them) and the next batch starts a new one, as does a batch after close().
 */
export function startGroupingThread(
  data: GroupingThreadData,
  start: StartGroupingThread = (d) => startWorker(import.meta.url, 'grouping-thread-entry', d),
): BatchRunner & { ready(): Promise<void> } {
  let worker: Worker | null = null;
  let ready: Promise<void> = Promise.resolve();
  let nextId = 0;
  /** The batches each thread was given: a thread that ends fails its own, not its successor's. */
  const waitingOn = new WeakMap<Worker, Map<number, Waiting>>();

  function spawn(): Worker {
    const thread = start(data);
    const waiting = new Map<number, Waiting>();
    waitingOn.set(thread, waiting);
    let started = () => {};
    let failedToStart: (error: unknown) => void = () => {};
    ready = new Promise<void>((resolve, reject) => {
      started = resolve;
      failedToStart = reject;
    });
    // Nobody may ask: ready() is for start-up.
    ready.catch(() => {});
    /** The thread failed or exited: its batches fail (and its start, if it never started). */
    const end = (error: unknown) => {
      if (worker === thread) worker = null;
      failedToStart(error);
      for (const w of waiting.values()) w.reject(error);
      waiting.clear();
    };
    thread.on('message', (message: FromGroupingThread) => {
      if (message.type === 'ready') return started();
      const w = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.type === 'grouped' || message.type === 'refreshed') w?.resolve(message.result);
      else w?.reject(errorWithCode(message.error, message.code));
    });
    thread.on('error', end);
    thread.on('exit', (code) => end(new Error(`The grouping thread exited (code ${code}).`)));
    return thread;
  }

  /** Posts a request to the thread (started anew if need be); resolves with its answer. */
  function ask<T extends BatchResult | RefreshRound>(
    request: (id: number) => ToGroupingThread,
  ): Promise<T> {
    worker ??= spawn();
    const thread = worker;
    const id = ++nextId;
    return new Promise<T>((resolve, reject) => {
      waitingOn.get(thread)?.set(id, { resolve: resolve as Waiting['resolve'], reject });
      thread.postMessage(request(id));
    });
  }

  worker = spawn();
  return {
    /** Resolves once the thread has its connection; rejects with why it could not. */
    ready: () => ready,
    group: (limit, now, stored = []) =>
      ask<BatchResult>((id) => ({ type: 'group', id, limit, now: now.toISOString(), stored })),
    refresh: () => ask<RefreshRound>((id) => ({ type: 'refresh', id })),
    async close() {
      const thread = worker;
      worker = null;
      if (!thread) return;
      // Not events.once: it would reject on an 'error' of a thread that failed as it started.
      const exited = new Promise((resolve) => thread.once('exit', resolve));
      const message: ToGroupingThread = { type: 'close' };
      thread.postMessage(message);
      await exited;
    },
  };
}
