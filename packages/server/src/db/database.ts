import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  kysely: Kysely<DB>;
  dialect: Dialect;
  /** The PostgreSQL connection string, for the LISTEN connection of the realtime bus. */
  postgresUrl: string | null;
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
    return { kysely, dialect: 'postgres', postgresUrl: url, close: () => kysely.destroy() };
  }
  const path = sqlitePath(url);
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  // WAL lets readers run beside the writer. synchronous=FULL fsyncs the WAL on every commit,
  // so a 201 survives not only `kill -9` of the server but a power cut of the machine.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  // The CLI may write while the server runs: wait for the lock instead of failing at once.
  sqlite.pragma('busy_timeout = 5000');
  const kysely = new Kysely<DB>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { kysely, dialect: 'sqlite', postgresUrl: null, close: () => kysely.destroy() };
}
