import type { CompiledQuery, QueryResult } from 'kysely';
import pg from 'pg';
import { isCompiledShapeText } from './compiled-shapes.js';
import { LOST_PREPARED, openPgPool } from './pg-pool.js';
import type { ReadCancel } from './read-cancel.js';
import { type ReadPool, readCancelled, readTimedOut } from './read-pool.js';

/** PostgreSQL's SQLSTATE for a statement cancelled by statement_timeout or pg_cancel_backend. */
const QUERY_CANCELED = '57014';

/** Statements prepared by name at most (per connection: each prepares those it runs). */
const MAX_PREPARED = 500;

/**
 * Report reads on PostgreSQL: a second pg pool whose connections carry `statement_timeout`,
 * so a read past READ_TIMEOUT_MS is stopped by the server itself, while the main pool (writes,
 * transactions, migrations, `debrief copy`) has no such limit. A read whose request is
 * abandoned is cancelled with pg_cancel_backend on its connection's backend.
 *
 * The pool has few connections (POSTGRES_READ_CONNECTIONS, 2): reads past them wait in the
 * server for a free one. A dashboard's reads (a month's timeseries, the tools table) are
 * aggregations that keep a PostgreSQL backend busy; ten of them at once take the CPU that
 * commits of reports need, and ingest beside them falls from 1,300 to 100–150 req/s on the
 * bench's two cores, where two at once leave it 500–700.
 */
export class PgReadPool implements ReadPool {
  readonly #pool: pg.Pool;
  /** The name of each statement prepared by name, by its text. */
  readonly #prepared = new Map<string, string>();
  /** False once a pooler lost a named statement: every read then runs unnamed. */
  #naming = true;
  #running = 0;
  readonly #waiting: { start(): void }[] = [];

  constructor(
    private readonly url: string,
    private readonly options: {
      timeoutMs: number;
      connections: number;
      onError(error: Error): void;
    },
  ) {
    // As the main pool (database.ts): a lost connection is logged and replaced, never fatal.
    this.#pool = openPgPool(url, {
      max: options.connections,
      statementTimeoutMs: options.timeoutMs,
      onLost: options.onError,
    });
  }

  async execute(
    query: CompiledQuery,
    cancel: ReadCancel | undefined,
  ): Promise<QueryResult<unknown>> {
    if (cancel?.cancelled) throw readCancelled();
    await this.#turn(cancel);
    try {
      return await this.#run(query, cancel);
    } finally {
      this.#next();
    }
  }

  /**
   * Waits for one of the `connections` turns, first come first served: here rather than in
   * pg's own queue, whose wait would count against connectionTimeoutMillis and fail a read
   * queued behind slow ones as if PostgreSQL were unreachable. A read waits as on SQLite
   * (sqlite-reader-pool.ts): its time limit starts when it runs; a request abandoned while
   * waiting leaves the queue.
   */
  #turn(cancel: ReadCancel | undefined): Promise<void> {
    if (this.#running < this.options.connections) {
      this.#running += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        start: () => {
          unsubscribe?.();
          resolve();
        },
      };
      const leave = () => {
        const at = this.#waiting.indexOf(waiter);
        if (at >= 0) this.#waiting.splice(at, 1);
        reject(readCancelled());
      };
      const unsubscribe = cancel?.onCancel(leave);
      this.#waiting.push(waiter);
    });
  }

  /**
   * The name a statement is prepared by on each read connection, for the statements compiled
   * once per shape (compiled-shapes.ts), the server's fixed reads: parsed once per connection
   * instead of on every read, and planned once where PostgreSQL finds its generic plan no dearer
   * than planning each read (plan_cache_mode auto, after five reads; see the first-page shape in
   * report.repository.ts). Other statements stay unnamed, planned for their values each time;
   * so do all, once a pooler has lost a named statement (LOST_PREPARED).
   */
  #nameOf(text: string): string | null {
    if (!this.#naming) return null;
    let name = this.#prepared.get(text);
    if (name === undefined && this.#prepared.size < MAX_PREPARED && isCompiledShapeText(text)) {
      name = `debrief_read_${this.#prepared.size + 1}`;
      this.#prepared.set(text, name);
    }
    return name ?? null;
  }

  /** Hands the turn that ended to the next read waiting, if any. */
  #next(): void {
    const waiter = this.#waiting.shift();
    if (waiter) waiter.start();
    else this.#running -= 1;
  }

  async #run(query: CompiledQuery, cancel: ReadCancel | undefined): Promise<QueryResult<unknown>> {
    const client = await this.#pool.connect();
    // The backend's pid, from the connection's BackendKeyData (pg sets it; its types omit it).
    const pid = (client as unknown as { processID: number }).processID;
    let cancelled = false;
    const unsubscribe = cancel?.onCancel(() => {
      cancelled = true;
      void this.#cancel(pid);
    });
    try {
      const name = this.#nameOf(query.sql);
      const values = [...query.parameters];
      let result: pg.QueryResult;
      try {
        result = await (name
          ? client.query({ name, text: query.sql, values })
          : client.query(query.sql, values));
      } catch (error) {
        if (!name || !LOST_PREPARED.has(String((error as { code?: unknown }).code))) throw error;
        // Sessions are moved under us: no more names for this pool, and this read runs unnamed.
        this.#naming = false;
        result = await client.query(query.sql, values);
      }
      return { rows: result.rows ?? [] };
    } catch (error) {
      if ((error as { code?: unknown }).code === QUERY_CANCELED) {
        throw cancelled ? readCancelled() : readTimedOut(this.options.timeoutMs);
      }
      throw error;
    } finally {
      unsubscribe?.();
      // A connection a cancel was sent to is closed, not reused: the cancel travels on its own
      // connection and may land after this read ended, on the next read of whichever request
      // took the connection, which then failed as a 503 read_timeout of its own (seen in the
      // bench: an abandoned warm-up request cancelled one of the measured run's).
      client.release(cancelled);
    }
  }

  /**
   * pg_cancel_backend over a connection of its own: this pool's may all be busy with reads (the
   * ones to cancel among them), and the main pool's belong to the writes.
   */
  async #cancel(pid: number): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 5000 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('select pg_cancel_backend($1)', [pid]);
    } catch {
      // The read then ends at statement_timeout.
    } finally {
      await client.end().catch(() => {});
    }
  }

  async close(): Promise<void> {
    await this.#pool.end();
    // Reads still waiting for a turn now fail on the ended pool instead of waiting forever.
    for (const waiter of this.#waiting.splice(0)) waiter.start();
  }
}
