import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENEROUS_INGEST_LIMITS } from './ingest-limits.js';

/** The repository root, for paths that must not depend on the caller's working directory. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Which CLI to run: `dist` is what `npm start` runs (the benchmark measures it); `source` runs
 * the TypeScript sources (as bundled once at the start of the test run, else through tsx), so
 * tests never exercise a stale build; `in-process` runs the same sources' commands
 * (cli-commands.ts) in the calling process, without the second a child spends starting: for
 * commands that do their work and return, not for `serve`.
 */
export type CliBuild = 'dist' | 'source' | 'in-process';

export const DIST_CLI = join(REPO_ROOT, 'packages/server/dist/cli.js');

function cliCommand(build: Exclude<CliBuild, 'in-process'>): string[] {
  // A/B measurements: DEBRIEF_CLI_ENTRY runs another entry point (a copy of the sources with a
  // change under test) without touching the shared tree's dist/.
  // Profiling: DEBRIEF_CPU_PROF_DIR=/tmp/x has every server the bench starts write a V8 CPU
  // profile per thread there when it exits (NODE_OPTIONS may not carry --cpu-prof).
  const profile = process.env.DEBRIEF_CPU_PROF_DIR;
  const flags = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
  const entry = process.env.DEBRIEF_CLI_ENTRY;
  if (entry)
    return entry.endsWith('.ts')
      ? [...flags, '--conditions=source', '--import', 'tsx', entry]
      : [...flags, entry];
  if (build === 'dist') return [...flags, DIST_CLI];
  // The test run bundles the CLI from the sources once (worker-bundles.ts): a child then starts
  // without loading tsx and transforming every module, most of its start.
  const bundles = process.env.DEBRIEF_WORKER_BUNDLES;
  if (bundles && existsSync(join(bundles, 'cli.js'))) return [...flags, join(bundles, 'cli.js')];
  return [
    ...flags,
    '--conditions=source',
    '--import',
    'tsx',
    join(REPO_ROOT, 'packages/server/src/cli.ts'),
  ];
}

export function distBuilt(): boolean {
  return existsSync(DIST_CLI);
}

function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  // Start from the caller's environment (PATH, HOME) but never inherit Debrief settings.
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) =>
        ![
          'PORT',
          'HOST',
          'DATABASE_URL',
          'PUBLIC_URL',
          'FREE_TIER_MONTHLY_REPORTS',
          'SIGNUPS',
          'SIGNUPS_PER_ADDRESS',
          'SQLITE_SYNC',
          'SQLITE_READERS',
          'POSTGRES_READ_CONNECTIONS',
          'LOG_LEVEL',
          'TRUST_PROXY',
          'REQUEST_TIMEOUT_MS',
          'HEADERS_TIMEOUT_MS',
          'KEEP_ALIVE_TIMEOUT_MS',
          'MAX_REQUESTS_PER_CONNECTION',
          'MAX_CONNECTIONS_PER_ADDRESS',
          'STREAMS_PER_ACCOUNT',
          'STREAMS_PER_INSTANCE',
          'STREAM_BUFFER_BYTES',
          'NODE_OPTIONS',
          ...Object.keys(GENEROUS_INGEST_LIMITS),
        ].includes(key),
    ),
  );
  return { ...base, ...GENEROUS_INGEST_LIMITS, ...env };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one `debrief` command to completion (bootstrap, set-quota, migrate). */
export function runCli(
  args: string[],
  env: Record<string, string>,
  build: CliBuild = 'source',
): Promise<CliResult> {
  if (build === 'in-process') return runCliInProcess(args, env);
  return new Promise((resolvePromise) => {
    execFile(
      process.execPath,
      [...cliCommand(build), ...args],
      { cwd: REPO_ROOT, env: childEnv(env), timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolvePromise({ code, stdout, stderr });
      },
    );
  });
}

/** The command's own function with the environment a child would get; its output captured. */
async function runCliInProcess(args: string[], env: Record<string, string>): Promise<CliResult> {
  // Loaded on first use: the bench imports this file and only ever runs the built CLI.
  const { runCli: run } = await import('../../packages/server/src/cli-commands.js');
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    env: childEnv(env),
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

export interface Bootstrapped {
  account_id: string;
  project: { id: string; name: string; created_at: string };
  ingest_key: string;
  api_key: string;
}

/**
 * `debrief bootstrap --json`, parsed: in this process unless `build` says otherwise, since a
 * test's bootstrap is set-up for the server it starts next (the bench bootstraps with `dist`).
 */
export async function bootstrapCli(
  env: Record<string, string>,
  options: { email: string; project: string; build?: CliBuild; scopes?: string },
): Promise<Bootstrapped> {
  const result = await runCli(
    [
      'bootstrap',
      '--email',
      options.email,
      '--password',
      'correct horse battery staple',
      '--project',
      options.project,
      ...(options.scopes ? ['--scopes', options.scopes] : []),
      '--json',
    ],
    env,
    options.build ?? 'in-process',
  );
  if (result.code !== 0) throw new Error(`debrief bootstrap failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as Bootstrapped;
}

export interface CliServer {
  /** http://127.0.0.1:<port> */
  url: string;
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal) once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything the process wrote so far (stdout and stderr), for failure messages. */
  output(): string;
  /** Sends a signal; resolves when the process is gone. */
  kill(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `debrief serve` as a child process on 127.0.0.1 and a free port (PORT=0). Resolves once the
 * server logs that it listens, with the URL it printed.
 */
export function startCliServer(
  env: Record<string, string>,
  build: Exclude<CliBuild, 'in-process'> = 'source',
): Promise<CliServer> {
  const child = spawn(process.execPath, [...cliCommand(build), 'serve'], {
    cwd: REPO_ROOT,
    env: childEnv({ HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`debrief serve did not start within 60 s:\n${output}`));
    }, 60_000);
    let pending = '';
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        let url: unknown;
        try {
          url = (JSON.parse(line) as { url?: unknown }).url;
        } catch {
          continue;
        }
        if (typeof url !== 'string') continue;
        clearTimeout(timer);
        // Keep draining the pipes, or a chatty server would block on a full pipe.
        resolvePromise({
          url,
          child,
          exited,
          output: () => output,
          kill(signal) {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`debrief serve exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
}
