import pg from 'pg';

const TIMESTAMPTZ_OID = 1184;
const parseTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ_OID, 'text');
/** PostgreSQL's text of a timestamptz in a session on UTC: `2026-11-26 09:27:14.123456+00`. */
const UTC_TEXT = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/;

/**
 * A timestamptz as every PostgreSQL connection of the server hands it over: the text SQLite stores
 * (`Date.toISOString()`'s, to the millisecond, truncated as a Date truncates), which the
 * services already take without parsing it (db/wire-timestamp.ts), instead of pg's Date, parsed
 * by a regular expression and printed again for the wire: 8 % of the event loop's CPU a page
 * read (CPU profile, page 1 + stats, 2026-11-26). Anything else (a year past 9999, BC,
 * infinity) is read as pg reads it. Every timestamp column is `Date | string` already
 * (db/schema.ts Timestamp), as SQLite reads text.
 */
export function timestamptzAsIso(text: string): string | Date {
  const match = UTC_TEXT.exec(text);
  if (!match) return parseTimestamptz(text);
  const millis = (match[3] ?? '').padEnd(3, '0').slice(0, 3);
  return `${match[1]}T${match[2]}.${millis}Z`;
}

/** pg's types, but timestamptz as ISO text: the `types` of every pool (see readTimesAsIso). */
export const PG_TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMPTZ_OID && format !== 'binary'
      ? timestamptzAsIso
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * Sets up a pg pool of the server (database.ts, pg-read-pool.ts): its sessions in UTC, the form
 * timestamptzAsIso reads without parsing (every statement that depends on the zone names UTC
 * itself), times read as ISO text. The zone is set by a statement on each new connection, the
 * first it runs (pg runs a client's queries in order), not by the `options` startup parameter,
 * which PgBouncer refuses unless told to ignore it. Where it does not take (a pooler handing
 * the session to another server connection), times print in the server's zone and are parsed
 * as pg parses them: slower, the same instants.
 */
export function readTimesAsIso(pool: pg.Pool): void {
  pool.on('connect', (client) => {
    client.query(`set time zone 'UTC'`).catch(() => {});
  });
}
