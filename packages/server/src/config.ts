import { SIGNUP_MODES, type Signups } from '@debrief/protocol';
import { z } from 'zod';
import { DEFAULT_MONTHLY_QUOTA } from './limits/storage-limits.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** A whole number of reports (per second, or in a burst) at least 1, or `unlimited`. */
function rateSetting(fallback: number) {
  return z
    .union([z.literal('unlimited'), z.coerce.number().int().min(1)], {
      error: 'must be a whole number (1 or more) or "unlimited"',
    })
    .default(fallback)
    .transform((value) => (value === 'unlimited' ? null : value));
}

/** A whole number of milliseconds or a count, 0 meaning no limit. */
function limit(fallback: number, unit: string) {
  return z.coerce
    .number({ error: `must be a whole number of ${unit} (0 = no limit)` })
    .int({ error: `must be a whole number of ${unit} (0 = no limit)` })
    .min(0, { error: `must be a whole number of ${unit} (0 = no limit)` })
    .default(fallback);
}

/**
 * The environment, parsed once at start (DESIGN §3). Empty variables count as unset, so
 * `PORT=` in a .env file falls back to the default instead of failing.
 */
const Env = z.object({
  PORT: z.coerce
    .number({ error: 'must be a port number' })
    .int({ error: 'must be a whole number' })
    .min(0, { error: 'must be between 0 and 65535' })
    .max(65535, { error: 'must be between 0 and 65535' })
    .default(8080),
  HOST: z.string().default('localhost'),
  DATABASE_URL: z.string().default('./data/debrief.db'),
  PUBLIC_URL: z
    .url({
      protocol: /^https?$/,
      error: 'must be an absolute http(s) URL such as https://debrief.example.com',
    })
    .optional(),
  FREE_TIER_MONTHLY_REPORTS: z
    .union([z.literal('unlimited'), z.coerce.number().int().min(0)], {
      error: 'must be a whole number of reports (0 or more) or "unlimited"',
    })
    .default(DEFAULT_MONTHLY_QUOTA),
  // Ingest rate limits (README, Rate limits): token buckets per ingest key and per address.
  INGEST_RATE_PER_KEY: rateSetting(50),
  INGEST_BURST_PER_KEY: rateSetting(200),
  INGEST_RATE_PER_ADDRESS: rateSetting(10),
  INGEST_BURST_PER_ADDRESS: rateSetting(60),
  ADDRESS_DAILY_SHARE: z.coerce
    .number()
    .int()
    .min(1, { error: 'must be a whole percentage from 1 to 100' })
    .max(100, { error: 'must be a whole percentage from 1 to 100' })
    .default(10),
  SIGNUPS: z
    .enum(SIGNUP_MODES, { error: 'must be "invite", "open" or "closed"' })
    .default('invite'),
  SIGNUPS_PER_ADDRESS: z.coerce
    .number({ error: 'must be a whole number of sign-ups' })
    .int({ error: 'must be a whole number of sign-ups' })
    .min(1, { error: 'must be at least 1' })
    .default(5),
  MAX_TOOL_NAMES_PER_PROJECT: z.coerce
    .number({ error: 'must be a whole number, 1 or more' })
    .int({ error: 'must be a whole number, 1 or more' })
    .min(1, { error: 'must be a whole number, 1 or more' })
    .default(1000),
  MAX_SOURCES_PER_PROJECT: z.coerce
    .number({ error: 'must be a whole number, 1 or more' })
    .int({ error: 'must be a whole number, 1 or more' })
    .min(1, { error: 'must be a whole number, 1 or more' })
    .default(1000),
  SQLITE_SYNC: z
    .enum(['normal', 'full'], { error: 'must be "normal" or "full"' })
    .default('normal'),
  // Reads of reports (issue 17, item 3; README, Configuration): reader processes beside the
  // event loop on a SQLite file, and a time limit on each read, both dialects.
  SQLITE_READERS: z.coerce
    .number({ error: 'must be a whole number of reader processes, 0 to 16' })
    .int({ error: 'must be a whole number of reader processes, 0 to 16' })
    .min(0, { error: 'must be a whole number of reader processes, 0 to 16' })
    .max(16, { error: 'must be a whole number of reader processes, 0 to 16' })
    .default(2),
  // How many report reads of this instance run at once on PostgreSQL (the read pool's
  // connections); the rest queue in the server. Ten at once took both cores of the bench's
  // machine from ingest (BENCHMARKS.md); raise it with PostgreSQL's cores.
  POSTGRES_READ_CONNECTIONS: z.coerce
    .number({ error: 'must be a whole number of connections, 1 to 100' })
    .int({ error: 'must be a whole number of connections, 1 to 100' })
    .min(1, { error: 'must be a whole number of connections, 1 to 100' })
    .max(100, { error: 'must be a whole number of connections, 1 to 100' })
    .default(2),
  READ_TIMEOUT_MS: limit(10_000, 'milliseconds'),
  // Whether this instance groups reports into issues (issue 18). `off` on some of several
  // instances on one PostgreSQL leaves grouping to the others; nothing is lost while no
  // instance groups: reports wait without an issue until one does.
  ISSUE_GROUPING: z.enum(['on', 'off'], { error: 'must be "on" or "off"' }).default('on'),
  LOG_LEVEL: z
    .enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` })
    .default('info'),
  // HTTP limits (README, Configuration): generous for any real agent, which sends a few KiB
  // over one short-lived connection, and tight enough that slow or piled-up connections from an
  // outsider are closed instead of held.
  REQUEST_TIMEOUT_MS: limit(30_000, 'milliseconds'),
  HEADERS_TIMEOUT_MS: limit(10_000, 'milliseconds'),
  KEEP_ALIVE_TIMEOUT_MS: limit(72_000, 'milliseconds'),
  MAX_REQUESTS_PER_CONNECTION: limit(10_000, 'requests'),
  MAX_CONNECTIONS_PER_ADDRESS: limit(128, 'connections'),
  STREAMS_PER_ACCOUNT: z.coerce
    .number()
    .int()
    .min(1, { error: 'must be a whole number of streams, at least 1' })
    .default(20),
  STREAMS_PER_INSTANCE: z.coerce
    .number()
    .int()
    .min(1, { error: 'must be a whole number of streams, at least 1' })
    .default(1000),
  STREAM_BUFFER_BYTES: z.coerce
    .number()
    .int()
    .min(65_536, { error: 'must be a whole number of bytes, at least 65536' })
    .default(1_048_576),
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((value): boolean | number | string => {
      if (value === 'true') return true;
      if (value === 'false') return false;
      if (/^\d+$/.test(value)) return Number(value);
      return value; // an address list, as Fastify's trustProxy takes it
    }),
});

/**
 * When a SQLite report commit reaches the disk (README, Configuration). Both survive `kill -9`
 * of the server (DESIGN §2). `normal`: the 201 leaves after the commit, and the WAL is fsynced
 * within 50 ms, so a power cut can lose at most that window. `full`: the 201 leaves after the
 * commit's own fsync, at 5–20 % less ingest (BENCHMARKS.md, item 10).
 */
export type SqliteSync = 'normal' | 'full';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  publicUrl: string;
  /** Instance default of stored reports per account per UTC month; null = unlimited. */
  freeTierMonthlyReports: number | null;
  /** Instance defaults of the ingest limits; each project may override them (dashboard). */
  ingestLimits: IngestLimitDefaults;
  /** Who may sign up: `invite` (the first sign-up, then invitations), `open`, `closed`. */
  signups: Signups;
  /**
   * Sign-ups one address may make within an hour before it must wait (30 s, doubling, up to
   * an hour): each costs a 128 MiB password hash and a free tier.
   */
  signupsPerAddress: number;
  /**
   * Distinct `tool_name` / `source` values a project may hold; a report with a new one past
   * the cap is refused (reports/screening/label-caps.ts).
   */
  maxToolNamesPerProject: number;
  maxSourcesPerProject: number;
  sqliteSync: SqliteSync;
  /**
   * Reader processes that run report reads of a SQLite file off the event loop; 0 = on the
   * main connection, as before (db/sqlite-reader-pool.ts).
   */
  sqliteReaders: number;
  /** Report reads run at once on PostgreSQL: the read pool's connections (db/pg-read-pool.ts). */
  postgresReadConnections: number;
  /** Whether this instance runs the grouper (issues/grouper.ts). */
  issueGrouping: boolean;
  /** A report read running longer is stopped: 503 `read_timeout` (0 = no limit). */
  readTimeoutMs: number;
  logLevel: (typeof LOG_LEVELS)[number];
  trustProxy: boolean | number | string;
  /** Event streams (README, Configuration): how many one account may hold open at once… */
  streamsPerAccount: number;
  /** …how many this process holds open in all… */
  streamsPerInstance: number;
  /** …and how many bytes one may have waiting for a slow reader before it is dropped. */
  streamBufferBytes: number;
  http: HttpLimits;
}

/** Timeouts and connection limits of the HTTP server (http/http-server.ts); 0 = no limit. */
export interface HttpLimits {
  /** Time to receive a whole request, headers and body; beyond it 408. */
  requestTimeoutMs: number;
  /** Time to receive a request's headers; beyond it 408. At most requestTimeoutMs. */
  headersTimeoutMs: number;
  /** How long an idle keep-alive connection stays open between requests. */
  keepAliveTimeoutMs: number;
  /** Requests one connection may carry; the last one is answered with `Connection: close`. */
  maxRequestsPerConnection: number;
  /** Open connections from one client address; beyond it 429 and the connection closes. */
  maxConnectionsPerAddress: number;
}

/**
 * Token buckets (reports per second and burst; null = no bucket) and the share of an account's
 * monthly quota one address may store per UTC day, in percent (100 = no per-address cap).
 */
export interface IngestLimitDefaults {
  keyRate: number | null;
  keyBurst: number | null;
  addressRate: number | null;
  addressBurst: number | null;
  addressDailyShare: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(
    Object.entries(env).filter(([key, value]) => key in Env.shape && value !== ''),
  );
  const parsed = Env.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0]);
      return `  ${name} ${issue.message} (received ${JSON.stringify(present[name])})`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.REQUEST_TIMEOUT_MS > 0 && e.HEADERS_TIMEOUT_MS > e.REQUEST_TIMEOUT_MS) {
    throw new ConfigError(
      `Invalid configuration:\n  HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS (received ${e.HEADERS_TIMEOUT_MS} > ${e.REQUEST_TIMEOUT_MS})`,
    );
  }
  const localHost = e.HOST === '0.0.0.0' || e.HOST === '::' ? 'localhost' : e.HOST;
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    publicUrl: (e.PUBLIC_URL ?? `http://${localHost}:${e.PORT}`).replace(/\/+$/, ''),
    freeTierMonthlyReports:
      e.FREE_TIER_MONTHLY_REPORTS === 'unlimited' ? null : e.FREE_TIER_MONTHLY_REPORTS,
    ingestLimits: {
      keyRate: e.INGEST_RATE_PER_KEY,
      keyBurst: e.INGEST_BURST_PER_KEY,
      addressRate: e.INGEST_RATE_PER_ADDRESS,
      addressBurst: e.INGEST_BURST_PER_ADDRESS,
      addressDailyShare: e.ADDRESS_DAILY_SHARE,
    },
    maxToolNamesPerProject: e.MAX_TOOL_NAMES_PER_PROJECT,
    maxSourcesPerProject: e.MAX_SOURCES_PER_PROJECT,
    signups: e.SIGNUPS,
    signupsPerAddress: e.SIGNUPS_PER_ADDRESS,
    sqliteSync: e.SQLITE_SYNC,
    sqliteReaders: e.SQLITE_READERS,
    postgresReadConnections: e.POSTGRES_READ_CONNECTIONS,
    issueGrouping: e.ISSUE_GROUPING === 'on',
    readTimeoutMs: e.READ_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY,
    http: {
      requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
      headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
      maxRequestsPerConnection: e.MAX_REQUESTS_PER_CONNECTION,
      maxConnectionsPerAddress: e.MAX_CONNECTIONS_PER_ADDRESS,
    },
    streamsPerAccount: e.STREAMS_PER_ACCOUNT,
    streamsPerInstance: e.STREAMS_PER_INSTANCE,
    streamBufferBytes: e.STREAM_BUFFER_BYTES,
  };
}
