import SQLite from 'better-sqlite3';
import { registerSqliteFunctions } from './sqlite-connection.js';

/**
 * A reader process of sqlite-reader-pool.ts: one read-only connection to the database file,
 * answering one SELECT at a time over the IPC channel. Loads only better-sqlite3.
 *
 * In WAL mode a reader never waits for the writer, and the writer never waits for it. The
 * process may be killed at any moment (a read past READ_TIMEOUT_MS, a client gone): a read-only
 * connection holds nothing that a kill could leave half-done.
 */

export interface ReadRequest {
  id: number;
  sql: string;
  parameters: unknown[];
}

/**
 * The rows as arrays, with the column names once: JSON that names every column in every row
 * is ~40 % longer for a page of reports, and the pool builds the objects for less than the
 * two processes would spend writing and parsing the names (a 51-row page: ~100 µs of CPU a
 * read, both sides).
 */
export type ReadAnswer =
  | { id: number; columns: string[]; rows: unknown[][] }
  | { id: number; error: { message: string; code: string | null } };

/** The first message of a reader: it has opened the file, or why it could not. */
export type ReaderStarted =
  | { ready: true }
  | { ready: false; message: string; code: string | null };

const STATEMENT_CACHE_SIZE = 200;

function main(): void {
  const path = process.argv[2];
  if (!path || !process.send) throw new Error('sqlite-reader-process: run by sqlite-reader-pool');
  let db: SQLite.Database;
  try {
    db = new SQLite(path, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    registerSqliteFunctions(db);
  } catch (error) {
    process.send({ ready: false, ...describe(error) } satisfies ReaderStarted);
    process.disconnect();
    return;
  }
  // Statements reused by text, as on the main connection (database.ts), in raw mode (rows as
  // arrays), with their column names.
  const cache = new Map<string, { statement: SQLite.Statement; columns: string[] }>();
  const send = process.send.bind(process);
  process.on('message', (request: ReadRequest) => {
    let answer: ReadAnswer;
    try {
      let prepared = cache.get(request.sql);
      if (!prepared) {
        const statement = db.prepare(request.sql).raw(true);
        prepared = { statement, columns: statement.columns().map((column) => column.name) };
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
        cache.set(request.sql, prepared);
      }
      const rows = prepared.statement.all(request.parameters) as unknown[][];
      answer = { id: request.id, columns: prepared.columns, rows };
    } catch (error) {
      answer = { id: request.id, error: describe(error) };
    }
    send(answer);
  });
  send({ ready: true } satisfies ReaderStarted);
  // The server went away (even by kill -9): nothing is left to read for.
  process.on('disconnect', () => process.exit(0));
}

function describe(error: unknown): { message: string; code: string | null } {
  const { message, code } = error as { message?: unknown; code?: unknown };
  return { message: String(message), code: typeof code === 'string' ? code : null };
}

main();
