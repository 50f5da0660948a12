import { spawn } from 'node:child_process';
import { join } from 'node:path';
import {
  type Bootstrapped,
  bootstrapCli,
  type CliServer,
  REPO_ROOT,
  runCli,
  startCliServer,
} from '../test/harness/cli-process.js';

export interface BareServer {
  url: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * A baseline server in its own process like the real one: `bare-server.ts` (node:http) or
 * `fastify-floor-server.ts` (an empty Fastify route).
 */
export function startBareServer(
  file: 'bare-server.ts' | 'fastify-floor-server.ts' = 'bare-server.ts',
): Promise<BareServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'bench', file)], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => {
      const port = Number(chunk.toString().trim());
      if (!port) return reject(new Error(`${file} printed ${chunk.toString()}`));
      resolve({
        url: `http://127.0.0.1:${port}`,
        pid: child.pid,
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      });
    });
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
}

/**
 * Debrief as `npm start` runs it (the built CLI), on a database bootstrapped through the CLI with
 * one account whose monthly quota is unlimited, so no bench run meets a 429.
 */
export async function startDebriefForIngest(
  dbEnv: Record<string, string>,
  email: string,
  project: string,
  /** Runs on the bootstrapped database before the server starts (a seed of its own). */
  beforeStart?: (tenant: Bootstrapped) => Promise<void>,
  /** The API key's scopes (`read` when absent). */
  scopes?: string,
): Promise<{ tenant: Bootstrapped; server: CliServer }> {
  const tenant = await bootstrapCli(dbEnv, {
    email,
    project,
    build: 'dist',
    ...(scopes ? { scopes } : {}),
  });
  const quota = await runCli(
    ['account', 'set-quota', '--email', email, '--monthly', 'unlimited'],
    dbEnv,
    'dist',
  );
  if (quota.code !== 0) throw new Error(`set-quota failed: ${quota.stderr}`);
  await beforeStart?.(tenant);
  return { tenant, server: await startCliServer(dbEnv, 'dist') };
}
