import { existsSync } from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type pg from 'pg';
import { openPgPool } from './pg-pool.js';
import { PgReadPool } from './pg-read-pool.js';
import type { ReadPool } from './read-pool.js';
import { RoutedDialect } from './routed-dialect.js';
import type { DB } from './schema.js';
import { openSqliteConnection, sqlitePath } from './sqlite-connection.js';
import { refuseOrphanedJournal, watchSqliteFile } from './sqlite-file.js';
import { sharedFileDatabase } from './sqlite-kysely.js';
import { SqliteReaderPool } from './sqlite-reader-pool.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  kysely: Kysely<DB>;
  dialect: Dialect;
  /** The PostgreSQL connection string, for the LISTEN connection of the realtime bus. */
  postgresUrl: string | null;
  /** The SQLite file (or `:memory:`), for the report writer's own connection. */
  sqlitePath: string | null;
  /** True when opening created a new, empty SQLite file (start-up says so, loudly). */
  created: boolean;
  /** Why the database file is no longer the one opened (moved, replaced), or null (/readyz). */
  fileProblem(): string | null;
  /**
   * Sets what every report read waits for first (routed-dialect.ts): the report writer's
   * `flush()`, set once when the writer is built (build-context.ts). Until then, nothing.
   */
  setReadBarrier(barrier: () => Promise<void>): void;
  /** Where report reads run off the main connection, or null (on it). */
  readPool: ReadPool | null;
  close(): Promise<void>;
}

/**
 * Report reads off the main connection (the server; CLI commands keep everything on it):
 * `readers` reader processes on a SQLite file or `postgresConnections` read connections to
 * PostgreSQL, and each read stopped after `timeoutMs`.
 */
export interface ReadOptions {
  readers: number;
  postgresConnections: number;
  timeoutMs: number;
}

/** Where connection errors of the pool go: the server's logger, or nowhere (CLI commands). */
export type DatabaseLog = Pick<FastifyBaseLogger, 'warn'>;

const SILENT: DatabaseLog = { warn: () => {} };

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

export function openDatabase(
  url: string,
  log: DatabaseLog = SILENT,
  reads: ReadOptions | null = null,
): Database {
  let barrier: () => Promise<void> = async () => {};
  const routing = (pool: ReadPool | null) => ({
    pool,
    barrier: () => barrier(),
  });
  const common = {
    setReadBarrier(next: () => Promise<void>) {
      barrier = next;
    },
  };
  if (isPostgresUrl(url)) {
    const readPool = reads
      ? new PgReadPool(url, {
          timeoutMs: reads.timeoutMs,
          connections: reads.postgresConnections,
          onError: (error) =>
            log.warn(
              { err: error },
              'a PostgreSQL read connection was lost; the pool opens a new one',
            ),
        })
      : null;
    const dialect = new PostgresDialect({ pool: openPool(url, log) });
    const kysely = new Kysely<DB>({ dialect: new RoutedDialect(dialect, routing(readPool)) });
    return {
      ...common,
      kysely,
      dialect: 'postgres',
      postgresUrl: url,
      sqlitePath: null,
      created: false,
      readPool,
      fileProblem: () => null,
      close: () => kysely.destroy(),
    };
  }
  const path = sqlitePath(url);
  const memory = path === ':memory:';
  if (!memory) refuseOrphanedJournal(path);
  const created = !memory && !existsSync(path);
  const sqlite = openSqliteConnection(path);
  // `:memory:` cannot be opened by a second connection: its reads stay on the main one.
  const readPool =
    reads && reads.readers > 0 && !memory
      ? new SqliteReaderPool(path, { size: reads.readers, timeoutMs: reads.timeoutMs })
      : null;
  const dialect = new SqliteDialect({ database: sharedFileDatabase(sqlite) });
  const kysely = new Kysely<DB>({ dialect: new RoutedDialect(dialect, routing(readPool)) });
  return {
    ...common,
    kysely,
    dialect: 'sqlite',
    postgresUrl: null,
    sqlitePath: path,
    created,
    readPool,
    fileProblem: memory ? () => null : watchSqliteFile(path),
    close: () => kysely.destroy(),
  };
}

/** The main PostgreSQL pool (pg-pool.ts): writes, transactions, migrations, `debrief copy`. */
function openPool(url: string, log: DatabaseLog): pg.Pool {
  return openPgPool(url, {
    max: 10,
    named: true,
    onLost: (error) =>
      log.warn(
        { err: error },
        'a PostgreSQL connection was lost; the pool opens a new one when needed',
      ),
  });
}
