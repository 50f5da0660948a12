import type SQLite from 'better-sqlite3';
import { Kysely, type SqliteDatabase, SqliteDialect } from 'kysely';
import type { DB } from './schema.js';

const STATEMENT_CACHE_SIZE = 500;

/**
 * A connection to the SQLite file as Kysely sees it (the main one, and the report writer's when
 * it groups: reports/write-path/sqlite/), with two changes:
 *
 * - Compiled statements are reused by SQL text. Kysely prepares every query anew, and
 *   better-sqlite3 compiles a statement on each prepare(): about a tenth of the ingest CPU time.
 *   Kysely runs one query at a time on this single connection, so a cached
 *   statement is never in use twice at once.
 * - Transactions begin IMMEDIATE. The report writer commits on its own connection
 *   (reports/write-path/); a deferred transaction that read before that commit and
 *   writes after it would fail with SQLITE_BUSY_SNAPSHOT instead of waiting for the lock.
 */
export function sharedFileDatabase(sqlite: SQLite.Database): SqliteDatabase {
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

/** Kysely over one connection of the file, on its own: no read routing, no pool. */
export function kyselyOverConnection(sqlite: SQLite.Database): Kysely<DB> {
  return new Kysely<DB>({ dialect: new SqliteDialect({ database: sharedFileDatabase(sqlite) }) });
}
