import type SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, type SqliteDatabase, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.js';
import { openSqliteConnection, sqlitePath } from './sqlite-connection.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  kysely: Kysely<DB>;
  dialect: Dialect;
  /** The PostgreSQL connection string, for the LISTEN connection of the realtime bus. */
  postgresUrl: string | null;
  /** The SQLite file (or `:memory:`), for the report writer's own connection. */
  sqlitePath: string | null;
  close(): Promise<void>;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

export function openDatabase(url: string): Database {
  if (isPostgresUrl(url)) {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    const kysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return {
      kysely,
      dialect: 'postgres',
      postgresUrl: url,
      sqlitePath: null,
      close: () => kysely.destroy(),
    };
  }
  const path = sqlitePath(url);
  const sqlite = openSqliteConnection(path);
  const kysely = new Kysely<DB>({
    dialect: new SqliteDialect({ database: forSharedFile(sqlite) }),
  });
  return {
    kysely,
    dialect: 'sqlite',
    postgresUrl: null,
    sqlitePath: path,
    close: () => kysely.destroy(),
  };
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * The main connection as Kysely sees it, with two changes:
 *
 * - Compiled statements are reused by SQL text. Kysely prepares every query anew, and
 *   better-sqlite3 compiles a statement on each prepare(): about a tenth of the ingest CPU time
 *   (BENCHMARKS.md). Kysely runs one query at a time on this single connection, so a cached
 *   statement is never in use twice at once.
 * - Transactions begin IMMEDIATE. The report writer commits on its own connection
 *   (reports/sqlite-report-writer.ts); a deferred transaction that read before that commit and
 *   writes after it would fail with SQLITE_BUSY_SNAPSHOT instead of waiting for the lock.
 */
function forSharedFile(sqlite: SQLite.Database): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      const text = sql === 'begin' ? 'begin immediate' : sql;
      let statement = cache.get(text);
      if (!statement) {
        statement = sqlite.prepare(text);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
        cache.set(text, statement);
      }
      return statement;
    },
  };
}
