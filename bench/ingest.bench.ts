import { bootstrapCli, runCli, startCliServer } from '../test/harness/cli-process.js';
import type { BenchDatabase } from './databases.js';
import { type LoadResult, measure } from './load.js';
import { startBareServer } from './processes.js';

export const INGEST_CONNECTIONS = 50;

export interface Timing {
  warmupSeconds: number;
  seconds: number;
}

/** The one body both servers receive: a typical report with every optional field. */
export function ingestBody(ingestKey: string): string {
  return JSON.stringify({
    ingest_key: ingestKey,
    outcome: 'failure',
    details:
      'The search tool returned no results for "createApp", although three files in the repository define it.',
    tool_name: 'search_code',
    source: 'claude-code',
    metadata: { client: 'bench', client_version: '1.0.0', model: 'x-1' },
  });
}

/** POST /v1/reports load against the bare `node:http` baseline. */
export async function benchBareIngest(timing: Timing): Promise<LoadResult> {
  const bare = await startBareServer();
  try {
    return await measure({
      url: `${bare.url}/v1/reports`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: ingestBody(`wk_${'0'.repeat(32)}`),
      serverPid: bare.pid,
      connections: INGEST_CONNECTIONS,
      ...timing,
    });
  } finally {
    await bare.stop();
  }
}

/**
 * POST /v1/reports load against `debrief serve` (the built CLI, as `npm start` runs it) on a
 * fresh database, for an account bootstrapped by the CLI with an unlimited quota.
 */
export async function benchDebriefIngest(
  database: BenchDatabase,
  timing: Timing,
  env: Record<string, string> = {},
): Promise<LoadResult> {
  const dbEnv = { DATABASE_URL: database.url, ...env };
  const email = 'bench-ingest@example.test';
  const tenant = await bootstrapCli(dbEnv, { email, project: 'Bench ingest', build: 'dist' });
  const quota = await runCli(
    ['account', 'set-quota', '--email', email, '--monthly', 'unlimited'],
    dbEnv,
    'dist',
  );
  if (quota.code !== 0) throw new Error(`set-quota failed: ${quota.stderr}`);
  const server = await startCliServer(dbEnv, 'dist');
  try {
    return await measure({
      url: `${server.url}/v1/reports`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: ingestBody(tenant.ingest_key),
      serverPid: server.child.pid,
      connections: INGEST_CONNECTIONS,
      ...timing,
    });
  } finally {
    await server.kill('SIGTERM');
  }
}
