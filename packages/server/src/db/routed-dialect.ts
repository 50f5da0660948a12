import type {
  CompiledQuery,
  DatabaseConnection,
  DatabaseIntrospector,
  Dialect,
  DialectAdapter,
  Driver,
  Kysely,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';
import { cancelOfStatement } from './read-cancel.js';
import type { ReadPool } from './read-pool.js';
import { readsReportTables } from './read-routing.js';

export interface ReadRouting {
  /** Where report reads run; null: on the main connection (SQLite `:memory:`). */
  pool: ReadPool | null;
  /** Resolves once every report acknowledged so far can be read (the writer's flush). */
  barrier(): Promise<void>;
}

/**
 * The dialect of the app's Kysely: the database's own, with a driver that sends each SELECT of
 * a report table made outside a transaction (read-routing.ts; builder or raw) through the read
 * barrier and then to the read pool, and everything else (writes, transactions, PRAGMAs, key
 * lookups) to the main connection. Services and repositories know nothing of it: the
 * routing is decided per statement, here, so no read path has to remember a step.
 *
 * Chosen over an explicit `ctx.reads` instance: with two instances, each new heavy read would
 * have to remember to use the right one, a step a caller would sooner or later forget.
 */
export class RoutedDialect implements Dialect {
  constructor(
    private readonly inner: Dialect,
    private readonly routing: ReadRouting,
  ) {}

  createDriver(): Driver {
    return new RoutedDriver(this.inner.createDriver(), this.routing);
  }
  createQueryCompiler(): QueryCompiler {
    return this.inner.createQueryCompiler();
  }
  createAdapter(): DialectAdapter {
    return this.inner.createAdapter();
  }
  // biome-ignore lint/suspicious/noExplicitAny: Dialect's own signature.
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return this.inner.createIntrospector(db);
  }
}

class RoutedDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly routing: ReadRouting,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutedConnection(this.inner, this.routing);
  }
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    const routed = connection as RoutedConnection;
    routed.inTransaction = true;
    await this.inner.beginTransaction(await routed.main(), settings);
  }
  async commitTransaction(connection: DatabaseConnection) {
    await this.inner.commitTransaction(await (connection as RoutedConnection).main());
  }
  async rollbackTransaction(connection: DatabaseConnection) {
    await this.inner.rollbackTransaction(await (connection as RoutedConnection).main());
  }
  async savepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    await this.inner.savepoint?.(await (connection as RoutedConnection).main(), name, compile);
  }
  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    const main = await (connection as RoutedConnection).main();
    await this.inner.rollbackToSavepoint?.(main, name, compile);
  }
  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    await this.inner.releaseSavepoint?.(
      await (connection as RoutedConnection).main(),
      name,
      compile,
    );
  }
  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await (connection as RoutedConnection).release();
  }
  async destroy(): Promise<void> {
    await this.routing.pool?.close();
    await this.inner.destroy();
  }
}

/**
 * Kysely acquires a connection per statement (or per transaction); this one takes the main
 * connection only when a statement needs it. A report read therefore waits for the barrier
 * without holding a pooled PostgreSQL connection (the writer may need one to get there) and
 * without taking the SQLite main connection's turn from the statements queued behind it.
 */
class RoutedConnection implements DatabaseConnection {
  inTransaction = false;
  #main: DatabaseConnection | null = null;

  constructor(
    private readonly inner: Driver,
    private readonly routing: ReadRouting,
  ) {}

  async main(): Promise<DatabaseConnection> {
    this.#main ??= await this.inner.acquireConnection();
    return this.#main;
  }

  async release(): Promise<void> {
    const main = this.#main;
    this.#main = null;
    this.inTransaction = false;
    if (main) await this.inner.releaseConnection(main);
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (!this.inTransaction && readsReportTables(query)) {
      await this.routing.barrier();
      const { pool } = this.routing;
      // Stopped with its request when made through the request's view (read-cancel.ts).
      if (pool) return (await pool.execute(query, cancelOfStatement(query))) as QueryResult<R>;
    }
    return (await this.main()).executeQuery<R>(query);
  }

  async *streamQuery<R>(
    query: CompiledQuery,
    chunkSize?: number,
  ): AsyncIterableIterator<QueryResult<R>> {
    yield* (await this.main()).streamQuery<R>(query, chunkSize);
  }
}
