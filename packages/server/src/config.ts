import { SIGNUP_MODES } from '@debrief/protocol';
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

/** Distinct labels (tool names, sources) a project may hold. */
function labelCap() {
  return z.coerce
    .number({ error: 'must be a whole number, 1 or more' })
    .int({ error: 'must be a whole number, 1 or more' })
    .min(1, { error: 'must be a whole number, 1 or more' })
    .default(1000);
}

const DURATION = /^(\d+)(ms|s|m|h|d)$/;
const DURATION_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** Comma-separated durations (`5s,5m,2h`): the waits between a notification's attempts. */
function retrySchedule(fallback: string) {
  const error = 'must be comma-separated durations such as 5s,5m,30m,2h (units ms, s, m, h, d)';
  return z
    .string()
    .default(fallback)
    .transform((value, context) => {
      const waits: number[] = [];
      for (const part of value.split(',').map((word) => word.trim())) {
        const match = DURATION.exec(part);
        if (!match) {
          context.addIssue({ code: 'custom', message: error });
          return z.NEVER;
        }
        waits.push(Number(match[1]) * (DURATION_MS[match[2] as string] as number));
      }
      return waits;
    });
}

/**
 * Every setting, written once: its parsing, its default and its description (the CLI's usage
 * lists them; a test checks the README's configuration table against them). Empty variables
 * count as unset, so `PORT=` in a .env file falls back to the default instead of failing.
 */
export const Env = z.object({
  PORT: z.coerce
    .number({ error: 'must be a port number' })
    .int({ error: 'must be a whole number' })
    .min(0, { error: 'must be between 0 and 65535' })
    .max(65535, { error: 'must be between 0 and 65535' })
    .default(8080)
    .describe('HTTP port'),
  HOST: z
    .string()
    .default('localhost')
    .describe('Interface to listen on; 0.0.0.0 to expose beyond this machine'),
  DATABASE_URL: z
    .string()
    .default('./data/debrief.db')
    .describe('A SQLite file path (also sqlite: / file: URLs) or a postgres:// URL'),
  PUBLIC_URL: z
    .url({
      protocol: /^https?$/,
      error: 'must be an absolute http(s) URL such as https://debrief.example.com',
    })
    .optional()
    .meta({
      description: 'Base URL printed in /skill.md, snippets and problem type links',
      default: 'http://localhost:$PORT',
    }),
  FREE_TIER_MONTHLY_REPORTS: z
    .union([z.literal('unlimited'), z.coerce.number().int().min(0)], {
      error: 'must be a whole number of reports (0 or more) or "unlimited"',
    })
    .default(DEFAULT_MONTHLY_QUOTA)
    .transform((value) => (value === 'unlimited' ? null : value))
    .describe('Stored reports per account per UTC month (a number or unlimited)'),
  // Token buckets per ingest key and per address; each project may override them.
  INGEST_RATE_PER_KEY: rateSetting(50).describe(
    'Reports per second one ingest key may send, sustained (unlimited = no bucket)',
  ),
  INGEST_BURST_PER_KEY: rateSetting(200).describe(
    'Reports one ingest key may send at once above that rate',
  ),
  INGEST_RATE_PER_ADDRESS: rateSetting(10).describe(
    'Reports per second one client address may send to one project',
  ),
  INGEST_BURST_PER_ADDRESS: rateSetting(60).describe(
    'Reports one address may send at once above that rate',
  ),
  ADDRESS_DAILY_SHARE: z.coerce
    .number()
    .int()
    .min(1, { error: 'must be a whole percentage from 1 to 100' })
    .max(100, { error: 'must be a whole percentage from 1 to 100' })
    .default(10)
    .describe("Percent of an account's monthly quota one address may store per UTC day"),
  SIGNUPS: z
    .enum(SIGNUP_MODES, { error: 'must be "invite", "open" or "closed"' })
    .default('invite')
    .describe('Who may sign up: invite (the first, then invitations), open or closed'),
  // Each sign-up costs a 128 MiB password hash and a free tier.
  SIGNUPS_PER_ADDRESS: z.coerce
    .number({ error: 'must be a whole number of sign-ups' })
    .int({ error: 'must be a whole number of sign-ups' })
    .min(1, { error: 'must be at least 1' })
    .default(5)
    .describe('Sign-ups one address may make in an hour before each further one waits'),
  MAX_TOOL_NAMES_PER_PROJECT: labelCap().describe(
    'Distinct tool_name values a project may hold; a new one past it is a 400',
  ),
  MAX_SOURCES_PER_PROJECT: labelCap().describe('Distinct source values a project may hold'),
  SQLITE_SYNC: z
    .enum(['normal', 'full'], { error: 'must be "normal" or "full"' })
    .default('normal')
    .describe("When a report's SQLite commit reaches the disk: normal (within 50 ms) or full"),
  // Processes, not threads: a SQLite statement stops only with its process.
  SQLITE_READERS: z.coerce
    .number({ error: 'must be a whole number of reader processes, 0 to 16' })
    .int({ error: 'must be a whole number of reader processes, 0 to 16' })
    .min(0, { error: 'must be a whole number of reader processes, 0 to 16' })
    .max(16, { error: 'must be a whole number of reader processes, 0 to 16' })
    .default(2)
    .describe('Reader processes that run report reads of a SQLite file (0 = main connection)'),
  // More reads at once would take the cores that commits of reports need; raise it with
  // PostgreSQL's cores.
  POSTGRES_READ_CONNECTIONS: z.coerce
    .number({ error: 'must be a whole number of connections, 1 to 100' })
    .int({ error: 'must be a whole number of connections, 1 to 100' })
    .min(1, { error: 'must be a whole number of connections, 1 to 100' })
    .max(100, { error: 'must be a whole number of connections, 1 to 100' })
    .default(2)
    .describe('Report reads of this instance that run at once on PostgreSQL'),
  READ_TIMEOUT_MS: limit(10_000, 'milliseconds').describe(
    'A report read running longer is stopped: 503 read_timeout (0 = no limit)',
  ),
  // `off` on some of several instances on one PostgreSQL leaves grouping to the others; reports
  // wait without an issue, never lost, while no instance groups.
  ISSUE_GROUPING: z
    .enum(['on', 'off'], { error: 'must be "on" or "off"' })
    .default('on')
    .describe('Whether this instance groups reports into issues'),
  NOTIFY_RETRY_SCHEDULE: retrySchedule('5s,5m,30m,2h,5h,10h,14h,20h,24h').describe(
    "Waits between a notification's attempts after the first (each with up to 10 % jitter); then it has failed",
  ),
  ALLOW_PRIVATE_DESTINATIONS: z
    .enum(['true', 'false'], { error: 'must be "true" or "false"' })
    .default('false')
    .describe(
      'true: notification destinations may be private, loopback or link-local addresses (a receiver on this network)',
    ),
  ISSUE_ANSWER_WAIT_MS: z.coerce
    .number({ error: 'must be a whole number of milliseconds from 0 to 5000' })
    .int({ error: 'must be a whole number of milliseconds from 0 to 5000' })
    .min(0, { error: 'must be a whole number of milliseconds from 0 to 5000' })
    .max(5000, { error: 'must be a whole number of milliseconds from 0 to 5000' })
    .default(200)
    .describe(
      "The longest a submit waits to tell the agent its report's issue (agent note, resolved or ignored); 0 = never tells",
    ),
  LOG_LEVEL: z
    .enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` })
    .default('info')
    .describe(
      'fatal, error, warn, info, debug, trace or silent; request lines are logged at debug',
    ),
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((value): boolean | number | string => {
      if (value === 'true') return true;
      if (value === 'false') return false;
      if (/^\d+$/.test(value)) return Number(value);
      return value; // an address list, as Fastify's trustProxy takes it
    })
    .describe('true, a number of hops, or addresses to trust for X-Forwarded-*'),
  // HTTP limits: generous for any real agent, which sends a few KiB over one short-lived
  // connection, and tight enough that slow or piled-up connections from an outsider are closed
  // instead of held (http/http-server.ts).
  REQUEST_TIMEOUT_MS: limit(30_000, 'milliseconds').describe(
    'Time to receive a whole request, body included; then 408 (0 = none)',
  ),
  HEADERS_TIMEOUT_MS: limit(10_000, 'milliseconds').describe(
    "Time to receive a request's headers; then 408 (at most REQUEST_TIMEOUT_MS)",
  ),
  KEEP_ALIVE_TIMEOUT_MS: limit(72_000, 'milliseconds').describe(
    'How long an idle keep-alive connection stays open',
  ),
  MAX_REQUESTS_PER_CONNECTION: limit(10_000, 'requests').describe(
    'Requests per connection; the last gets Connection: close (0 = unlimited)',
  ),
  MAX_CONNECTIONS_PER_ADDRESS: limit(128, 'connections').describe(
    'Open connections per client address; beyond it 429 (0 = unlimited)',
  ),
  STREAMS_PER_ACCOUNT: z.coerce
    .number()
    .int()
    .min(1, { error: 'must be a whole number of streams, at least 1' })
    .default(20)
    .describe('Event streams one account may hold open at once on an instance'),
  STREAMS_PER_INSTANCE: z.coerce
    .number()
    .int()
    .min(1, { error: 'must be a whole number of streams, at least 1' })
    .default(1000)
    .describe('Event streams one server process holds open in all'),
  STREAM_BUFFER_BYTES: z.coerce
    .number()
    .int()
    .min(65_536, { error: 'must be a whole number of bytes, at least 65536' })
    .default(1_048_576)
    .describe('Bytes that may wait for a slow stream reader before it is dropped'),
  SMTP_URL: z
    .url({
      protocol: /^smtps?$/,
      error: 'must be an smtp:// or smtps:// URL such as smtps://user:password@smtp.example.com',
    })
    .optional()
    .describe(
      'The mail server of email destinations and the digest (smtp:// or smtps://); unset: no email',
    ),
  SMTP_FROM: z
    .string()
    .min(3)
    .default('Debrief <debrief@localhost>')
    .describe('The sender of notification emails, e.g. Debrief <debrief@example.com>'),
});

export type EnvName = keyof typeof Env.shape;

/** The parsed settings as the code uses them, grouped where one module takes several. */
function toConfig(e: z.output<typeof Env>) {
  const localHost = e.HOST === '0.0.0.0' || e.HOST === '::' ? 'localhost' : e.HOST;
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    publicUrl: (e.PUBLIC_URL ?? `http://${localHost}:${e.PORT}`).replace(/\/+$/, ''),
    /** Instance default of stored reports per account per UTC month; null = unlimited. */
    freeTierMonthlyReports: e.FREE_TIER_MONTHLY_REPORTS,
    /** Instance defaults of the ingest limits; each project may override them (dashboard). */
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
    notifications: {
      retryScheduleMs: e.NOTIFY_RETRY_SCHEDULE as readonly number[],
      allowPrivateDestinations: e.ALLOW_PRIVATE_DESTINATIONS === 'true',
    },
    issueAnswerWaitMs: e.ISSUE_ANSWER_WAIT_MS,
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
    /** Email destinations; null when SMTP_URL is unset (email destinations then fail their deliveries). */
    smtp: e.SMTP_URL ? { url: e.SMTP_URL, from: e.SMTP_FROM } : null,
  };
}

/** The configuration the code reads, derived from `Env`: the settings, grouped by who uses them. */
export type Config = ReturnType<typeof toConfig>;
/** Timeouts and connection limits of the HTTP server (http/http-server.ts); 0 = no limit. */
export type HttpLimits = Config['http'];
/**
 * Token buckets (reports per second and burst; null = no bucket) and the share of an account's
 * monthly quota one address may store per UTC day, in percent (100 = no per-address cap).
 */
export type IngestLimitDefaults = Config['ingestLimits'];
/**
 * When a SQLite report commit reaches the disk. Both survive `kill -9` of the server.
 * `normal`: the 201 leaves after the commit, and the WAL is fsynced within 50 ms, so a power
 * cut can lose at most that window. `full`: the 201 leaves after the commit's own fsync.
 */
export type SqliteSync = Config['sqliteSync'];

export interface SettingDoc {
  name: EnvName;
  /** The default as written in the environment; undefined when the setting has none. */
  default: string | undefined;
  description: string;
}

/** Each setting's name, default and description, read from `Env`. */
export function describeSettings(): SettingDoc[] {
  const properties = z.toJSONSchema(Env, { io: 'input' }).properties ?? {};
  return (Object.keys(Env.shape) as EnvName[]).map((name) => {
    const property = properties[name] as { default?: unknown; description?: string };
    return {
      name,
      default: property.default === undefined ? undefined : String(property.default),
      description: property.description ?? '',
    };
  });
}

/** The settings as the CLI's usage lists them: one line each, with its default. */
export function settingsUsage(): string {
  const settings = describeSettings();
  const width = Math.max(...settings.map((s) => s.name.length));
  return settings
    .map((s) => `  ${s.name.padEnd(width)}  ${s.description} [default: ${s.default ?? 'none'}]`)
    .join('\n');
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
  return toConfig(e);
}
