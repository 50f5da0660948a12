/**
 * The one place that decides whether an error means "the database cannot be used right now"
 * (answered 503 `service_unavailable` with `Retry-After`, and /readyz not ready) rather than a
 * bug (500). The error handler asks it for every unexpected error, and the SQLite report writer
 * for every failed batch, so no call site maps driver errors itself.
 *
 * A fault is recognised by the driver's code, looked for on the error, its `cause` chain and
 * the errors of an AggregateError (Node's connect to a host name that resolves to several
 * addresses). Codes, not messages, except for pg's own connection errors, which carry none.
 */
export interface StorageFault {
  /** `connection`: the database server cannot be reached or dropped us (retry soon). `disk`:
   * the file system refuses (full, read-only, I/O error): someone has to act first. */
  kind: 'connection' | 'busy' | 'disk';
  /** The driver code that decided it (SQLITE_FULL, 57P01, ECONNREFUSED…), for logs. */
  code: string;
  /** What `Retry-After` says. */
  retryAfterSeconds: number;
}

const RETRY_AFTER: Record<StorageFault['kind'], number> = { connection: 5, busy: 2, disk: 30 };

/** SQLite result codes, extended ones included (SQLITE_IOERR_WRITE, SQLITE_READONLY_DBMOVED…). */
const SQLITE_PREFIXES: [string, StorageFault['kind']][] = [
  ['SQLITE_FULL', 'disk'],
  ['SQLITE_READONLY', 'disk'],
  ['SQLITE_IOERR', 'disk'],
  ['SQLITE_CANTOPEN', 'disk'],
  // The file at DATABASE_URL is not (or no longer) a database: it cannot be used until fixed.
  ['SQLITE_NOTADB', 'disk'],
  // busy_timeout (5 s) ran out behind another writer: the database is overloaded, not broken.
  ['SQLITE_BUSY', 'busy'],
  ['SQLITE_PROTOCOL', 'busy'],
];

/** errno codes of the file system and of the network. */
const ERRNO: Record<string, StorageFault['kind']> = {
  ENOSPC: 'disk',
  EDQUOT: 'disk',
  EFBIG: 'disk',
  EROFS: 'disk',
  EIO: 'disk',
  ECONNREFUSED: 'connection',
  ECONNRESET: 'connection',
  ECONNABORTED: 'connection',
  ETIMEDOUT: 'connection',
  EPIPE: 'connection',
  EHOSTUNREACH: 'connection',
  ENETUNREACH: 'connection',
  ENOTFOUND: 'connection',
  EAI_AGAIN: 'connection',
};

/**
 * PostgreSQL SQLSTATEs: class 08 (connection exception) is matched by prefix; these others mean
 * the server is going away, starting, full, or (after a failover to a standby) read-only.
 */
const SQLSTATE: Record<string, StorageFault['kind']> = {
  '57P01': 'connection', // admin_shutdown: pg_terminate_backend, a fast shutdown
  '57P02': 'connection', // crash_shutdown
  '57P03': 'connection', // cannot_connect_now: starting up or in recovery
  '53300': 'busy', // too_many_connections
  '53100': 'disk', // disk_full
  '58030': 'disk', // io_error
  '25006': 'connection', // read_only_sql_transaction: connected to a standby after a failover
};

/**
 * pg raises these as plain Errors without a code (pg/lib/client.js, pg-pool/index.js) when the
 * socket closes under a query or a connect times out.
 */
const PG_CONNECTION_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable)/;

function classifyOne(error: unknown): StorageFault | null {
  if (typeof error !== 'object' || error === null) return null;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    for (const [prefix, kind] of SQLITE_PREFIXES) {
      if (code.startsWith(prefix)) return fault(kind, code);
    }
    const kind = ERRNO[code] ?? SQLSTATE[code] ?? (/^08[0-9A-Z]{3}$/.test(code) && 'connection');
    if (kind) return fault(kind, code);
  }
  const message = (error as { message?: unknown }).message;
  if (typeof message === 'string' && PG_CONNECTION_MESSAGE.test(message)) {
    return fault('connection', 'PG_CONNECTION_LOST');
  }
  return null;
}

function fault(kind: StorageFault['kind'], code: string): StorageFault {
  return { kind, code, retryAfterSeconds: RETRY_AFTER[kind] };
}

/** The storage fault behind an error, or null when it is something else (a bug: 500). */
export function classifyStorageFault(error: unknown): StorageFault | null {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0 && seen.size < 16) {
    const next = queue.shift();
    if (next === null || next === undefined || seen.has(next)) continue;
    seen.add(next);
    const found = classifyOne(next);
    if (found) return found;
    if (typeof next === 'object') {
      queue.push((next as { cause?: unknown }).cause);
      const inner = (next as { errors?: unknown }).errors;
      if (Array.isArray(inner)) queue.push(...inner);
    }
  }
  return null;
}

/** An Error carrying a driver code across a thread boundary (the SQLite writer thread). */
export function errorWithCode(message: string, code: string | null | undefined): Error {
  const error = new Error(message);
  if (code) Object.assign(error, { code });
  return error;
}

/** The driver code of an error, if it has one (to send it across a thread). */
export function errorCode(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
}
