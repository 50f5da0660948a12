import pg from 'pg';
import { statementName } from './named-statements.js';

const TIMESTAMPTZ_OID = 1184;
const parseTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ_OID, 'text');
/** PostgreSQL's text of a timestamptz in a session on UTC: `2026-11-26 09:27:14.123456+00`. */
const UTC_TEXT = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/;

/**
 * A timestamptz as every PostgreSQL connection of the server hands it over: the text SQLite stores
 * (`Date.toISOString()`'s, to the millisecond, truncated as a Date truncates), which the
 * services already take without parsing it (db/wire-timestamp.ts), instead of pg's Date, parsed
 * by a regular expression and printed again for the wire: 8 % of the event loop's CPU a page
 * read (CPU profile, page 1 + stats). Anything else (a year past 9999, BC,
 * infinity) is read as pg reads it. Every timestamp column is `Date | string` already
 * (db/schema.ts Timestamp), as SQLite reads text.
 */
export function timestamptzAsIso(text: string): string | Date {
  const match = UTC_TEXT.exec(text);
  if (!match) return parseTimestamptz(text);
  const millis = (match[3] ?? '').padEnd(3, '0').slice(0, 3);
  return `${match[1]}T${match[2]}.${millis}Z`;
}

/** pg's types, but timestamptz as ISO text (timestamptzAsIso). */
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMPTZ_OID && format !== 'binary'
      ? timestamptzAsIso
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * A pg pool of the server: the main one (database.ts) and the reads' (pg-read-pool.ts).
 *
 * - Lost connections: a pg client whose connection drops (a PostgreSQL restart or failover,
 *   `pg_terminate_backend`, `idle_session_timeout`, a proxy closing an idle connection) emits
 *   'error'; with no listener, Node ends the process. pg-pool listens only
 *   while a client is idle, so every client gets a listener of its own when it connects
 *   (`onLost`): the broken client is discarded (pg-pool drops a client that is not queryable
 *   when it is released), the query it was running fails (503, errors/storage-fault.ts), and
 *   the next query opens a new connection. A connect that hangs (a host that dropped off the
 *   network) gives up after 5 s instead of holding the request; TCP keep-alive notices a dead
 *   peer on idle ones.
 * - Times: sessions in UTC, the form timestamptzAsIso reads without parsing (every statement
 *   that depends on the zone names UTC itself), read as ISO text. The zone is set by a
 *   statement on each new connection, the first it runs (pg runs a client's queries in order),
 *   not by the `options` startup parameter, which PgBouncer refuses unless told to ignore it.
 *   Where it does not take (a pooler handing the session to another server connection), times
 *   print in the server's zone and are parsed as pg parses them: slower, the same instants.
 */
export function openPgPool(
  url: string,
  options: {
    max: number;
    statementTimeoutMs?: number;
    onLost(error: Error): void;
    /** Prepare the statements of db/named-statements.ts by name (namingClient). */
    named?: boolean;
  },
): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max,
    ...(options.named ? { Client: namingClient() } : {}),
    connectionTimeoutMillis: 5000,
    keepAlive: true,
    ...(options.statementTimeoutMs !== undefined
      ? { statement_timeout: options.statementTimeoutMs }
      : {}),
    types: TYPES,
  });
  pool.on('connect', (client) => {
    client.on('error', options.onLost);
    client.query(`set time zone 'UTC'`).catch(() => {});
  });
  // The same error of an idle client, re-emitted by pg-pool: already reported by its client.
  pool.on('error', () => {});
  return pool;
}

/**
 * SQLSTATEs of a named statement a connection does not hold as pg believes (no such statement,
 * or one already by that name): a pooler between the server and PostgreSQL that hands each
 * statement to another session, as PgBouncer's transaction mode did before 1.21.
 */
export const LOST_PREPARED = new Set(['26000', '42P05']);

/**
 * A pg client that runs the statements of db/named-statements.ts by name (Kysely hands pg a
 * statement as text and values; a name is pg's way to prepare it once per connection), all
 * others as they come. Once a pooler loses a named statement (LOST_PREPARED), that statement
 * fails, with its transaction, and the pool's clients name nothing any more: the write path
 * then stores that batch's submissions again one at a time (group-commit-writer.ts), unnamed.
 */
function namingClient(): new () => pg.Client {
  let naming = true;
  class NamingClient extends pg.Client {
    // biome-ignore lint/suspicious/noExplicitAny: pg's query() has a dozen overloads.
    override query(...args: any[]): any {
      const [text, values, callback] = args;
      const name =
        naming && typeof text === 'string' && typeof callback !== 'function'
          ? statementName(text)
          : undefined;
      if (!name) return (super.query as (...a: unknown[]) => unknown)(...args);
      const running = super.query({ name, text, values }) as Promise<pg.QueryResult>;
      return running.catch((error: unknown) => {
        if (LOST_PREPARED.has(String((error as { code?: unknown }).code))) naming = false;
        throw error;
      });
    }
  }
  return NamingClient as unknown as new () => pg.Client;
}
