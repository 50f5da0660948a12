import type { BenchDatabase } from './databases.js';
import { type GroupingLag, watchGroupingLag } from './grouping-lag.js';
import { type LoadResult, measure } from './load.js';
import { startBareServer, startDebriefForIngest } from './processes.js';
import { seedNotedIssues } from './seed-agent-notes.js';

export const INGEST_CONNECTIONS = 50;

export interface Timing {
  warmupSeconds: number;
  seconds: number;
}

/**
 * `DEBRIEF_BENCH_BODY=secrets` sends a report full of credentials (an AWS key id and secret, a
 * GitHub token, a JWT after `Bearer`, a database URL with a password, a token in metadata), so
 * that every request runs the whole redaction table (reports/redaction/) instead of stopping at
 * its prefilter: the worst case of secret scanning at ingest. Built from pieces: fabricated.
 */
export const BENCH_BODY = process.env.DEBRIEF_BENCH_BODY === 'secrets' ? 'secrets' : 'plain';

const SECRET_DETAILS = [
  'Deploy failed: the tool printed AKIA',
  'Q3EGWBYT7KZ5XN2M with secret Zx9Qm2Lp7Rt4Vb8Nc3Kd6Fg1Hj5/Ws0Ey+Ua2I7T, then retried with ghp_',
  'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 and Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.',
  'eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c against ',
  'postgres://app:hunter2-Secret@db.internal:5432/app; every attempt answered 401.',
].join('');

export const BENCH_TOOL = 'search_code';
const BENCH_DETAILS =
  'The search tool returned no results for "createApp", although three files in the repository define it.';

/** The one body both servers receive: a typical report with every optional field. */
export function ingestBody(ingestKey: string): string {
  return JSON.stringify({
    ingest_key: ingestKey,
    outcome: 'failure',
    details: BENCH_BODY === 'secrets' ? SECRET_DETAILS : BENCH_DETAILS,
    tool_name: BENCH_TOOL,
    source: 'claude-code',
    metadata:
      BENCH_BODY === 'secrets'
        ? { client: 'bench', client_version: '1.0.0', model: 'x-1', api_key: 'not-a-real-key-123' }
        : { client: 'bench', client_version: '1.0.0', model: 'x-1' },
  });
}

/**
 * POST /v1/reports load against the bare `node:http` baseline, or (`floor`) against an empty
 * Fastify route: the framework's ceiling (fastify-floor-server.ts).
 */
export async function benchBareIngest(
  timing: Timing,
  server: 'bare' | 'floor' = 'bare',
): Promise<LoadResult> {
  const bare = await startBareServer(
    server === 'bare' ? 'bare-server.ts' : 'fastify-floor-server.ts',
  );
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
 * fresh database, for an account bootstrapped by the CLI with an unlimited quota; with how far
 * issue grouping trailed it (grouping-lag.ts).
 */
export async function benchDebriefIngest(
  database: BenchDatabase,
  timing: Timing,
  env: Record<string, string> = {},
  /** Issues with agent notes to seed in the project first (seed-agent-notes.ts); none by default. */
  notedIssues = 0,
): Promise<LoadResult & { grouping: GroupingLag | null }> {
  const dbEnv = { DATABASE_URL: database.url, ...env };
  const email = 'bench-ingest@example.test';
  const { tenant, server } = await startDebriefForIngest(
    dbEnv,
    email,
    'Bench ingest',
    notedIssues > 0
      ? (t) =>
          seedNotedIssues(
            database.url,
            t.project.id,
            BENCH_TOOL,
            notedIssues,
            process.env.DEBRIEF_BENCH_NOTED === 'join' ? BENCH_DETAILS : null,
          )
      : undefined,
  );
  // With ISSUE_GROUPING=off nothing groups: no lag to watch (its drain would wait 120 s).
  const lag = env.ISSUE_GROUPING === 'off' ? null : await watchGroupingLag(database.url);
  try {
    const load = await measure({
      url: `${server.url}/v1/reports`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: ingestBody(tenant.ingest_key),
      serverPid: server.child.pid,
      connections: INGEST_CONNECTIONS,
      ...timing,
    });
    return { ...load, grouping: lag ? await lag.stop() : null };
  } finally {
    await lag?.cancel();
    await server.kill('SIGTERM');
  }
}
