import SQLite from 'better-sqlite3';

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

export type ReadAnswer =
  | { id: number; rows: unknown[] }
  | { id: number; error: { message: string; code: string | null } };

const STATEMENT_CACHE_SIZE = 200;

function main(): void {
  const path = process.argv[2];
  if (!path || !process.send) throw new Error('sqlite-reader-process: run by sqlite-reader-pool');
  const db = new SQLite(path, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  // Statements reused by text, as on the main connection (database.ts).
  const cache = new Map<string, SQLite.Statement>();
  const send = process.send.bind(process);
  process.on('message', (request: ReadRequest) => {
    let answer: ReadAnswer;
    try {
      let statement = cache.get(request.sql);
      if (!statement) {
        statement = db.prepare(request.sql);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
        cache.set(request.sql, statement);
      }
      answer = { id: request.id, rows: statement.all(request.parameters) };
    } catch (error) {
      const { message, code } = error as { message?: unknown; code?: unknown };
      answer = {
        id: request.id,
        error: { message: String(message), code: typeof code === 'string' ? code : null },
      };
    }
    send(answer);
  });
  // The server went away (even by kill -9): nothing is left to read for.
  process.on('disconnect', () => process.exit(0));
}

main();
