import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';

/**
 * The file behind a SQLite `DATABASE_URL`: `./data/debrief.db`, `sqlite:./x.db`, `file:/abs/x.db`
 * or `:memory:`.
 */
export function sqlitePath(url: string): string {
  const path = url.replace(/^(sqlite|file):(\/\/)?/i, '');
  return path === ':memory:' ? path : resolve(path);
}

/** See openSqliteConnection. */
export const WAL_AUTOCHECKPOINT_PAGES = 4000;

/**
 * One connection to the SQLite file, set up alike wherever one is opened: the server's main
 * connection and the report writer's (reports/write-path/sqlite/). Kept free of Kysely and
 * pg so that the worker thread loads only what it uses.
 */
export function openSqliteConnection(
  path: string,
  { mustExist = false }: { mustExist?: boolean } = {},
): SQLite.Database {
  if (path !== ':memory:' && !mustExist) mkdirSync(dirname(path), { recursive: true });
  // mustExist: the report writer's connection never creates the file (the server's did, and
  // migrated it); if it is gone, a new empty file there would hide where the reports went.
  const sqlite = new SQLite(path, { fileMustExist: mustExist });
  // WAL lets readers run beside the writer. synchronous=FULL fsyncs the WAL on every commit, so
  // what this connection commits survives a power cut. The report writer's connection sets its
  // own, from SQLITE_SYNC (reports/write-path/sqlite/sqlite-writer-thread.ts).
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  // Another connection (the report writer, the CLI) may hold the write lock: wait for it
  // instead of failing at once.
  sqlite.pragma('busy_timeout = 5000');
  // A connection that commits with the WAL past this many pages checkpoints it, in its own
  // thread: the backstop behind the report writer's checkpoint thread, which copies the WAL
  // into the file as it goes (reports/write-path/sqlite/wal-checkpointer.ts). At SQLite's
  // default of 1,000 (~4 MB) the writer itself checkpointed two or three times a second under
  // ingest; at this (~16 MB) it seldom does, and the WAL stays bounded where nothing
  // checkpoints beside it (the CLI).
  sqlite.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  registerSqliteFunctions(sqlite);
  return sqlite;
}

/**
 * SQL functions SQLite lacks, given to every connection (the reader processes' too).
 * `debrief_fold(text)`: the text in lower case by Unicode's rules, as PostgreSQL's `lower()`
 * does; SQLite's own `lower()` and `LIKE` fold ASCII letters only ("Ä" stays "Ä"). The issues
 * list's title search matches through it (issues/issue.repository.ts titleMatch).
 */
export function registerSqliteFunctions(sqlite: SQLite.Database): void {
  sqlite.function('debrief_fold', { deterministic: true }, (value: unknown) =>
    typeof value === 'string' ? value.toLowerCase() : value,
  );
}
