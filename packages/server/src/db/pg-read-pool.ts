import type { CompiledQuery, QueryResult } from 'kysely';
import pg from 'pg';
import { type ReadPool, readCancelled, readTimedOut } from './read-pool.js';

/** PostgreSQL's SQLSTATE for a statement cancelled by statement_timeout or pg_cancel_backend. */
const QUERY_CANCELED = '57014';

/**
 * Report reads on PostgreSQL: a second pg pool whose connections carry `statement_timeout`,
 * so a read past READ_TIMEOUT_MS is stopped by the server itself, while the main pool (writes,
 * transactions, migrations, `debrief copy`) has no such limit. A read whose request is
 * abandoned is cancelled with pg_cancel_backend on its connection's backend.
 */
export class PgReadPool implements ReadPool {
  readonly #pool: pg.Pool;

  constructor(
    private readonly url: string,
    private readonly options: { timeoutMs: number; onError(error: Error): void },
  ) {
    this.#pool = new pg.Pool({
      connectionString: url,
      max: 10,
      connectionTimeoutMillis: 5000,
      keepAlive: true,
      statement_timeout: options.timeoutMs,
    });
    // As the main pool (database.ts): a lost connection is logged and replaced, never fatal.
    this.#pool.on('connect', (client) => client.on('error', options.onError));
    this.#pool.on('error', () => {});
  }

  async execute(
    query: CompiledQuery,
    signal: AbortSignal | undefined,
  ): Promise<QueryResult<unknown>> {
    if (signal?.aborted) throw readCancelled();
    const client = await this.#pool.connect();
    // The backend's pid, from the connection's BackendKeyData (pg sets it; its types omit it).
    const pid = (client as unknown as { processID: number }).processID;
    let cancelled = false;
    const cancel = () => {
      cancelled = true;
      void this.#cancel(pid);
    };
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      const result = await client.query(query.sql, [...query.parameters]);
      return { rows: result.rows ?? [] };
    } catch (error) {
      if ((error as { code?: unknown }).code === QUERY_CANCELED) {
        throw cancelled ? readCancelled() : readTimedOut(this.options.timeoutMs);
      }
      throw error;
    } finally {
      signal?.removeEventListener('abort', cancel);
      client.release();
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
  }
}
