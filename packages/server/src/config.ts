import { z } from 'zod';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

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
    .default(1000),
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
  SIGNUPS: z.enum(['open', 'closed'], { error: 'must be "open" or "closed"' }).default('open'),
  SQLITE_SYNC: z
    .enum(['normal', 'full'], { error: 'must be "normal" or "full"' })
    .default('normal'),
  LOG_LEVEL: z
    .enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` })
    .default('info'),
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
  /**
   * Distinct `tool_name` / `source` values a project may hold; a report with a new one past
   * the cap is refused (reports/screening/label-caps.ts).
   */
  maxToolNamesPerProject: number;
  maxSourcesPerProject: number;
  signups: 'open' | 'closed';
  sqliteSync: SqliteSync;
  logLevel: (typeof LOG_LEVELS)[number];
  trustProxy: boolean | number | string;
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
  const localHost = e.HOST === '0.0.0.0' || e.HOST === '::' ? 'localhost' : e.HOST;
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    publicUrl: (e.PUBLIC_URL ?? `http://${localHost}:${e.PORT}`).replace(/\/+$/, ''),
    freeTierMonthlyReports:
      e.FREE_TIER_MONTHLY_REPORTS === 'unlimited' ? null : e.FREE_TIER_MONTHLY_REPORTS,
    maxToolNamesPerProject: e.MAX_TOOL_NAMES_PER_PROJECT,
    maxSourcesPerProject: e.MAX_SOURCES_PER_PROJECT,
    signups: e.SIGNUPS,
    sqliteSync: e.SQLITE_SYNC,
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY,
  };
}
