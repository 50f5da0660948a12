import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CompiledQuery, QueryResult } from 'kysely';
import { errorWithCode } from '../errors/storage-fault.js';
import { type ReadPool, readCancelled, readTimedOut } from './read-pool.js';
import type { ReadAnswer, ReadRequest } from './sqlite-reader-process.js';

/**
 * Report reads of a SQLite file, run by up to `size` reader processes
 * (sqlite-reader-process.ts), each with its own read-only connection: a long count or a deep
 * page runs there while the event loop keeps taking submissions (issue 17, item 3).
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

  execute(query: CompiledQuery, signal: AbortSignal | undefined): Promise<QueryResult<unknown>> {
    if (this.#closed) return Promise.reject(new Error('the database is closed'));
    if (signal?.aborted) return Promise.reject(readCancelled());
    return new Promise((resolve, reject) => {
      const job: Job = {
        request: { id: this.#nextId++, sql: query.sql, parameters: [...query.parameters] },
        resolve: (rows) => resolve({ rows }),
        reject,
        signal,
        onAbort: () => this.#abandon(job),
        timer: null,
        reader: null,
        settled: false,
      };
      signal?.addEventListener('abort', job.onAbort, { once: true });
      this.#queue.push(job);
      this.#pump();
    });
  }

  /** The process ids of the running readers (tests check that a stopped one is gone). */
  pids(): number[] {
    return [...this.#readers].map((r) => r.child.pid ?? -1);
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) this.#settle(job, new Error('the database is closed'));
    await Promise.all([...this.#readers].map((reader) => this.#stop(reader)));
  }

  #pump(): void {
    while (this.#queue.length > 0) {
      let reader = this.#idle.pop();
      if (!reader) {
        if (this.#readers.size >= this.options.size) return;
        reader = this.#start();
      }
      const job = this.#queue.shift()!;
      job.reader = reader;
      reader.job = job;
      // From dispatch, so a read waiting behind others is not cut short by their time.
      if (this.options.timeoutMs > 0) {
        job.timer = setTimeout(() => this.#timeOut(job), this.options.timeoutMs);
      }
      reader.child.send(job.request);
    }
  }

  #start(): Reader {
    const child = fork(readerEntry(), [this.path], {
      execArgv: import.meta.url.endsWith('.ts') ? ['--import', import.meta.resolve('tsx/esm')] : [],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const reader: Reader = { child, job: null, exited: new Promise((r) => child.once('exit', r)) };
    this.#readers.add(reader);
    child.on('message', (answer: ReadAnswer) => {
      const job = reader.job;
      if (!job || job.request.id !== answer.id) return;
      reader.job = null;
      if ('rows' in answer) this.#settle(job, null, answer.rows);
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
      if (job) {
        this.#settle(
          job,
          errorWithCode(`a SQLite reader process exited (${signal ?? code}) during a read`, null),
        );
      }
      if (!this.#closed) this.#pump();
    });
    child.on('error', () => {}); // 'exit' follows and says the rest.
    return reader;
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
    job.signal?.removeEventListener('abort', job.onAbort);
    if (error) job.reject(error);
    else job.resolve(rows);
  }
}

interface Job {
  request: ReadRequest;
  resolve(rows: unknown[]): void;
  reject(error: Error): void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
  timer: NodeJS.Timeout | null;
  reader: Reader | null;
  settled: boolean;
}

interface Reader {
  child: ChildProcess;
  job: Job | null;
  exited: Promise<unknown>;
}

/** The built entry; tests run the TypeScript sources, which the child loads through tsx. */
function readerEntry(): string {
  const extension = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  return fileURLToPath(new URL(`./sqlite-reader-process.${extension}`, import.meta.url));
}
