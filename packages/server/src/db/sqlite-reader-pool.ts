import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CompiledQuery, QueryResult } from 'kysely';
import { errorWithCode } from '../errors/storage-fault.js';
import { workerEntry } from '../start-worker.js';
import type { ReadCancel } from './read-cancel.js';
import { type ReadPool, readCancelled, readTimedOut } from './read-pool.js';
import type { ReadAnswer, ReaderStarted, ReadRequest } from './sqlite-reader-process.js';

/**
 * Report reads of a SQLite file, run by up to `size` reader processes
 * (sqlite-reader-process.ts), each with its own read-only connection: a long count or a deep
 * page runs there while the event loop keeps taking submissions.
 *
 * Processes, not worker threads: better-sqlite3 runs a statement in one native call and offers
 * no sqlite3_interrupt, and Worker.terminate() only stops JavaScript, so a terminated worker kept
 * a core busy until its statement ended (measured: 1 s of CPU in the second after terminate(),
 * on a cross join). A process is stopped by SIGKILL at once. A read past `timeoutMs`, or whose
 * request was abandoned, kills its process; the next read starts a fresh one. Processes start
 * on demand, so a server that is never read from never starts one.
 */
export class SqliteReaderPool implements ReadPool {
  readonly #idle: Reader[] = [];
  readonly #readers = new Set<Reader>();
  readonly #queue: Job[] = [];
  #nextId = 1;
  #closed = false;
  /** Readers stopped mid-read (time limit or abandoned request), for tests and logs. */
  stopped = 0;

  constructor(
    private readonly path: string,
    private readonly options: { size: number; timeoutMs: number },
  ) {}

  execute(query: CompiledQuery, cancel: ReadCancel | undefined): Promise<QueryResult<unknown>> {
    if (this.#closed) return Promise.reject(new Error('the database is closed'));
    if (cancel?.cancelled) return Promise.reject(readCancelled());
    const unsent = query.parameters.find((value) => !carriedAsJson(value));
    if (unsent !== undefined)
      return Promise.reject(
        new Error(`a report read bound a value JSON cannot carry (${typeof unsent}): not sent`),
      );
    return new Promise((resolve, reject) => {
      const job: Job = {
        request: { id: this.#nextId++, sql: query.sql, parameters: [...query.parameters] },
        resolve: (rows) => resolve({ rows }),
        reject,
        unsubscribe: null,
        timer: null,
        reader: null,
        settled: false,
      };
      job.unsubscribe = cancel?.onCancel(() => this.#abandon(job)) ?? null;
      this.#queue.push(job);
      this.#pump();
    });
  }

  /** The process ids of the readers (tests check that a stopped one is gone). */
  pids(): number[] {
    return [...this.#readers].map((r) => r.child.pid ?? -1);
  }

  /** The process ids of the readers running a read now. */
  busy(): number[] {
    return [...this.#readers].filter((r) => r.job !== null).map((r) => r.child.pid ?? -1);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#failQueue(new Error('the database is closed'));
    await Promise.all([...this.#readers].map((reader) => this.#stop(reader)));
  }

  /**
   * Hands queued reads to idle readers, and starts readers (up to `size`) for the reads that
   * no reader is free or starting for. A read's time limit runs from its dispatch to a ready
   * reader: a process start (slow on a loaded machine) does not count against it.
   */
  #pump(): void {
    if (this.#closed) return;
    while (this.#queue.length > 0 && this.#idle.length > 0) {
      const reader = this.#idle.pop()!;
      const job = this.#queue.shift()!;
      job.reader = reader;
      reader.job = job;
      if (this.options.timeoutMs > 0) {
        job.timer = setTimeout(() => this.#timeOut(job), this.options.timeoutMs);
      }
      reader.child.send(job.request);
    }
    const starting = [...this.#readers].filter((reader) => !reader.ready).length;
    let wanted = this.#queue.length - starting;
    while (wanted > 0 && this.#readers.size < this.options.size) {
      this.#start();
      wanted--;
    }
  }

  #start(): Reader {
    const entry = workerEntry(import.meta.url, 'sqlite-reader-process');
    const child = fork(fileURLToPath(entry.url), [this.path], {
      execArgv: entry.tsx ? ['--import', import.meta.resolve('tsx/esm')] : [],
      // JSON, not V8's structured clone: the answers are rows of strings, numbers and nulls, and
      // JSON.parse takes them in for less than the deserializer (the read bench's server CPU a
      // read at 200,000 reports, two runs of each: 6–33 % less on 18 of 22 rows, up to 7 % more
      // on the other 4). A parameter JSON cannot carry (a bigint, a Buffer) is refused by
      // execute().
      serialization: 'json',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const reader: Reader = {
      child,
      job: null,
      ready: false,
      exited: new Promise((r) => child.once('exit', r)),
    };
    this.#readers.add(reader);
    child.on('message', (answer: ReadAnswer | ReaderStarted) => {
      if ('ready' in answer) {
        if (answer.ready) {
          if (!this.#readers.has(reader)) return; // stopped while it started (close)
          reader.ready = true;
          this.#idle.push(reader);
          this.#pump();
        } else {
          // The file cannot be opened: the reads waiting fail as a read on it would (503).
          this.#failQueue(errorWithCode(answer.message, answer.code));
        }
        return;
      }
      const job = reader.job;
      if (!job || job.request.id !== answer.id) return;
      reader.job = null;
      if ('rows' in answer) this.#settle(job, null, objectsOf(answer.columns, answer.rows));
      else this.#settle(job, errorWithCode(answer.error.message, answer.error.code));
      if (!this.#closed) {
        this.#idle.push(reader);
        this.#pump();
      }
    });
    // Exited without being stopped (crashed, or the file cannot be opened): its read fails and
    // the next read starts another.
    child.once('exit', (code, signal) => {
      this.#forget(reader);
      const job = reader.job;
      reader.job = null;
      const error = errorWithCode(`a SQLite reader process exited (${signal ?? code})`, null);
      if (job) this.#settle(job, error);
      // One that never became ready would be started again and again: the reads fail instead.
      else if (!reader.ready) this.#failQueue(error);
      this.#pump();
    });
    child.on('error', () => {}); // 'exit' follows and says the rest.
    return reader;
  }

  #failQueue(error: Error): void {
    for (const job of this.#queue.splice(0)) this.#settle(job, error);
  }

  #timeOut(job: Job): void {
    job.timer = null;
    this.#stopFor(job, readTimedOut(this.options.timeoutMs));
  }

  #abandon(job: Job): void {
    const queued = this.#queue.indexOf(job);
    if (queued >= 0) {
      this.#queue.splice(queued, 1);
      this.#settle(job, readCancelled());
      return;
    }
    this.#stopFor(job, readCancelled());
  }

  /** Stops the reader running `job` (its statement cannot be interrupted otherwise). */
  #stopFor(job: Job, error: Error): void {
    const reader = job.reader;
    if (!reader || reader.job !== job) return;
    reader.job = null;
    this.stopped++;
    this.#settle(job, error);
    void this.#stop(reader);
    this.#pump();
  }

  async #stop(reader: Reader): Promise<void> {
    this.#forget(reader);
    if (reader.child.exitCode === null && reader.child.signalCode === null) {
      reader.child.kill('SIGKILL');
    }
    await reader.exited;
  }

  #forget(reader: Reader): void {
    this.#readers.delete(reader);
    const idle = this.#idle.indexOf(reader);
    if (idle >= 0) this.#idle.splice(idle, 1);
  }

  #settle(job: Job, error: Error | null, rows: unknown[] = []): void {
    if (job.settled) return;
    job.settled = true;
    if (job.timer) clearTimeout(job.timer);
    job.timer = null;
    job.unsubscribe?.();
    if (error) job.reject(error);
    else job.resolve(rows);
  }
}

interface Job {
  request: ReadRequest;
  resolve(rows: unknown[]): void;
  reject(error: Error): void;
  /** Stops listening to the request's cancel. */
  unsubscribe: (() => void) | null;
  timer: NodeJS.Timeout | null;
  reader: Reader | null;
  settled: boolean;
}

interface Reader {
  child: ChildProcess;
  job: Job | null;
  /** Has opened the file and takes reads. */
  ready: boolean;
  exited: Promise<unknown>;
}

/** Rows as better-sqlite3 gives them: an object per row, a later column of a name winning. */
function objectsOf(columns: readonly string[], rows: readonly unknown[][]): unknown[] {
  return rows.map((values) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < columns.length; i++) row[columns[i]!] = values[i];
    return row;
  });
}

/** What a report read binds, and the IPC channel's JSON carries unchanged. */
function carriedAsJson(value: unknown): boolean {
  return (
    value === null ||
    typeof value === 'string' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}
