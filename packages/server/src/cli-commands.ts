import { parseArgs } from 'node:util';
import {
  API_KEY_SCOPES,
  type ApiKeyScope,
  ApiKeyScope as ApiKeyScopeSchema,
  Email,
  INVITATION_MAX_HOURS,
} from '@debrief/protocol';
import { ensureAccount, setMonthlyQuota } from './accounts/account.service.js';
import { type Config, ConfigError, loadConfig, settingsUsage } from './config.js';
import { CopyError, copyDatabase } from './db/copy-database.js';
import type { Database } from './db/database.js';
import { openMigratedDatabase } from './db/migrate.js';
import { ApiError } from './errors/api-error.js';
import { StartupError } from './errors/startup-error.js';
import { createInvitation } from './invitations/invitation.service.js';
import { createApiKey } from './keys/key.service.js';
import { createProject } from './projects/project.service.js';
import { startServer } from './server.js';

/** Built when asked for: the settings' lines are read from the Env schema. */
const usage = () => `Usage: debrief <command> [options]

Commands:
  serve                                   Run the service (API, dashboard, realtime).
  migrate                                 Bring the database schema up to date and exit.
  bootstrap --email E --password P --project NAME [--scopes read,triage,admin] [--json]
                                          Create the account if absent, a project with its
                                          ingest key, and a new API key (read only unless
                                          --scopes asks for more).
  account set-quota --email E --monthly N|unlimited|default
                                          Set an account's monthly report quota.
  invite [--email E] [--expires 7d|48h] [--json]
                                          Print a one-time sign-up link (single use, for E
                                          only when given; expires in 7 days by default).
  copy --to postgres://… [--from FILE]    Copy the SQLite database (DATABASE_URL, or --from)
                                          to an empty PostgreSQL database, verifying the row
                                          counts. Stop the server first: the copy holds the
                                          file's write lock, and refuses if a writer has it.
                                          Sessions are not copied (everyone signs in again).

Configuration comes from the environment (docs/operating.md says more):
${settingsUsage()}

SIGNUPS: invite (default: the first sign-up creates the operator, later ones need an
invitation), open (anyone, throttled per address), closed (an invitation always, even for
the first account).`;

class UsageError extends Error {}

/** Where a command reads its configuration and writes its output. */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
}

/** The process's own environment and streams, as `debrief` runs. */
export const processIo: CliIo = {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/** Opens the configured database, brings its schema up to date, runs `run`, and closes it. */
async function withDatabase<T>(
  config: Config,
  io: CliIo,
  run: (db: Database, applied: string[]) => Promise<T>,
): Promise<T> {
  const { database, applied } = await openMigratedDatabase(config.databaseUrl);
  if (database.created) {
    io.stderr(`debrief: created a new, empty SQLite database at ${database.sqlitePath}\n`);
  }
  try {
    return await run(database, applied);
  } finally {
    await database.close();
  }
}

/** `--scopes read,triage,admin`: the new API key's scopes (`read` is implied). */
function parseScopeList(text: string | undefined): ApiKeyScope[] {
  const words = (text ?? 'read')
    .split(',')
    .map((word) => word.trim())
    .filter(Boolean);
  for (const word of words) {
    if (!ApiKeyScopeSchema.safeParse(word).success) {
      throw new UsageError(
        `--scopes takes a comma-separated list of ${API_KEY_SCOPES.join(', ')} (received ${JSON.stringify(word)})`,
      );
    }
  }
  return words as ApiKeyScope[];
}

function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '')
    throw new UsageError(`--${name} is required`);
  return value;
}

async function serve(config: Config): Promise<void> {
  const server = await startServer(config);
  const shutdown = (signal: string) => {
    server.app.log.info({ signal }, 'shutting down');
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

async function bootstrap(config: Config, args: string[], io: CliIo): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      project: { type: 'string' },
      scopes: { type: 'string', default: 'read' },
      json: { type: 'boolean', default: false },
    },
  });
  const email = required(values, 'email');
  const password = required(values, 'password');
  const projectName = required(values, 'project');
  const scopes = parseScopeList(values.scopes);
  const result = await withDatabase(config, io, async ({ kysely }) => {
    const account = await ensureAccount(kysely, { email, password });
    const { project, ingestKey } = await createProject(kysely, account.id, projectName.trim());
    const apiKey = await createApiKey(kysely, account.id, `bootstrap ${project.name}`, scopes);
    return { account, project, ingestKey, apiKey: apiKey.key };
  });
  if (values.json) {
    io.stdout(
      `${JSON.stringify({
        account_id: result.account.id,
        project: result.project,
        ingest_key: result.ingestKey,
        api_key: result.apiKey,
      })}\n`,
    );
    return;
  }
  io.stdout(
    [
      `${result.account.created ? 'Created' : 'Using existing'} account ${email} (${result.account.id})`,
      `Project     ${result.project.name} (${result.project.id})`,
      `Ingest key  ${result.ingestKey}   (public: put it in SKILL.md, MCP or Express config)`,
      `API key     ${result.apiKey}   (secret: shown once, reads reports)`,
      '',
    ].join('\n'),
  );
}

async function setQuota(config: Config, args: string[], io: CliIo): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { email: { type: 'string' }, monthly: { type: 'string' } },
  });
  const email = required(values, 'email');
  const monthly = required(values, 'monthly').trim();
  let setting: number | 'unlimited' | 'default';
  if (monthly === 'unlimited' || monthly === 'default') setting = monthly;
  else if (/^\d+$/.test(monthly)) setting = Number(monthly);
  else throw new UsageError('--monthly takes a whole number, "unlimited" or "default"');
  await withDatabase(config, io, ({ kysely }) => setMonthlyQuota(kysely, email, setting));
  io.stdout(`Monthly quota of ${email} set to ${setting}\n`);
}

/** `7d`, `48h` or a bare number of days, as hours. */
function parseExpiry(text: string): number {
  const match = /^(\d+)\s*([dh]?)$/i.exec(text.trim());
  const hours = match ? Number(match[1]) * (match[2]?.toLowerCase() === 'h' ? 1 : 24) : Number.NaN;
  if (!(hours >= 1 && hours <= INVITATION_MAX_HOURS))
    throw new UsageError('--expires takes a duration such as 7d or 48h, from 1h to 90d');
  return hours;
}

async function invite(config: Config, args: string[], io: CliIo): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      email: { type: 'string' },
      expires: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const email = values.email?.trim() || null;
  if (email !== null && !Email.safeParse(email).success)
    throw new UsageError(`--email must be an email address (received ${JSON.stringify(email)})`);
  const expiresInHours = values.expires === undefined ? undefined : parseExpiry(values.expires);
  const invitation = await withDatabase(config, io, ({ kysely }) =>
    createInvitation(kysely, {
      publicUrl: config.publicUrl,
      email,
      expiresInHours,
      createdBy: null,
    }),
  );
  // The link alone on stdout, so `$(debrief invite …)` captures it.
  io.stdout(`${values.json ? JSON.stringify(invitation) : invitation.url}\n`);
}

async function copy(config: Config, args: string[], io: CliIo): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { to: { type: 'string' }, from: { type: 'string' } },
  });
  const to = required(values, 'to');
  const from = values.from?.trim() || config.databaseUrl;
  const started = Date.now();
  const tables = await copyDatabase({
    from,
    to,
    progress: (line) => io.stderr(`${line}\n`),
  });
  const total = tables.reduce((sum, t) => sum + t.rows, 0);
  for (const t of tables)
    io.stdout(`${t.table === t.into ? t.table : `${t.table} → ${t.into}`}\t${t.rows}\n`);
  io.stdout(
    `Copied ${total} rows in ${((Date.now() - started) / 1000).toFixed(1)} s; every table's count matches. Point DATABASE_URL at the PostgreSQL database and start the server.\n`,
  );
}

async function main(argv: string[], io: CliIo): Promise<void> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    io.stdout(`${usage()}\n`);
    return;
  }
  const config = loadConfig(io.env);
  switch (command) {
    case 'serve':
      return serve(config);
    case 'migrate': {
      const applied = await withDatabase(config, io, async (_db, migrations) => migrations);
      io.stdout(applied.length ? `Applied ${applied.join(', ')}\n` : 'Database is up to date\n');
      return;
    }
    case 'bootstrap':
      return bootstrap(config, rest, io);
    case 'invite':
      return invite(config, rest, io);
    case 'copy':
      return copy(config, rest, io);
    case 'account':
      if (rest[0] === 'set-quota') return setQuota(config, rest.slice(1), io);
      throw new UsageError(`unknown account command ${JSON.stringify(rest[0] ?? '')}`);
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}

/**
 * Runs one `debrief` command and resolves with its exit code: 0 once it is done (`serve` once
 * it listens: its server keeps the process running), 1 with a message on `io.stderr`.
 */
export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  try {
    await main(argv, io);
    return 0;
  } catch (error) {
    reportFailure(error, io);
    return 1;
  }
}

/** One line for the operator for the errors it can act on; a stack only for the unexpected. */
function reportFailure(error: unknown, io: CliIo): void {
  if (error instanceof UsageError || (error instanceof TypeError && 'code' in error)) {
    io.stderr(`debrief: ${error.message}\n\n${usage()}\n`);
  } else if (
    error instanceof ConfigError ||
    error instanceof StartupError ||
    error instanceof CopyError ||
    error instanceof ApiError
  ) {
    io.stderr(`debrief: ${error.message}\n`);
  } else {
    io.stderr(
      `debrief: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
}
