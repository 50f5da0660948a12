import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, type SqliteDatabase, SqliteDialect } from 'kysely';
import pg from 'pg';
import { createGroupCommit, type TransactionWork } from './group-commit.js';
import type { DB } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  kysely: Kysely<DB>;
  dialect: Dialect;
  /** The PostgreSQL connection string, for the LISTEN connection of the realtime bus. */
  postgresUrl: string | null;
  /**
   * Runs `work` in a transaction and resolves once it is committed. On SQLite, work from
   * concurrent requests shares one transaction (group commit, see group-commit.ts); on
   * PostgreSQL each runs in its own (the server already groups commits across connections).
   */
  groupCommit<T>(work: TransactionWork<T>): Promise<T>;
  close(): Promise<void>;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** `./data/debrief.db`, `sqlite:./x.db`, `file:/abs/x.db` or `:memory:`. */
function sqlitePath(url: string): string {
  const path = url.replace(/^(sqlite|file):(\/\/)?/i, '');
  return path === ':memory:' ? path : resolve(path);
}

export function openDatabase(url: string): Database {
  if (isPostgresUrl(url)) {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    const kysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return {
      kysely,
      dialect: 'postgres',
      postgresUrl: url,
      groupCommit: (work) => kysely.transaction().execute(work),
      close: () => kysely.destroy(),
    };
  }
  const path = sqlitePath(url);
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  // WAL lets readers run beside the writer. synchronous=FULL fsyncs the WAL on every commit,
  // so a 201 survives not only `kill -9` of the server but a power cut of the machine. Group
  // commit (groupCommit below) pays that fsync once per batch of concurrent reports.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  // The CLI may write while the server runs: wait for the lock instead of failing at once.
  sqlite.pragma('busy_timeout = 5000');
  const kysely = new Kysely<DB>({
    dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
  });
  return {
    kysely,
    dialect: 'sqlite',
    postgresUrl: null,
    groupCommit: createGroupCommit(kysely),
    close: () => kysely.destroy(),
  };
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query anew, and better-sqlite3 compiles a statement on each prepare():
 * about a tenth of the ingest CPU time (BENCHMARKS.md). Compiled statements are reused by SQL
 * text. Kysely runs one query at a time on this single connection, so a cached statement is
 * never in use twice at once.
 */
function withStatementCache(sqlite: SQLite.Database): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (!statement) {
        statement = sqlite.prepare(sql);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}
