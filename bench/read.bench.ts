import {
  bootstrapCli,
  type CliServer,
  runCli,
  startCliServer,
} from '../test/harness/cli-process.js';
import type { BenchDatabase } from './databases.js';
import { ingestBody, type Timing } from './ingest.bench.js';
import { type LoadResult, measure } from './load.js';
import { benchIngestUnderReads, type MixedRound } from './mixed.bench.js';
import {
  dashboardReads,
  type ReadScenario,
  type ReadTargets,
  readScenarios,
} from './read-scenarios.js';
import { seedReports } from './seed.js';
import { closeSeedConnection, openSeedConnection } from './seed-connection.js';
import { rebuildCounters } from './seed-counters.js';
import { groupSeededReports } from './seed-issues.js';

/** Reports of the big project (`DEBRIEF_BENCH_READ_REPORTS`; 10,000,000 for the big run). */
export const READ_REPORTS = Number(process.env.DEBRIEF_BENCH_READ_REPORTS ?? 1_000_000);
/** Reports of the busy project, all from the last hour (`DEBRIEF_BENCH_RECENT_REPORTS`). */
export const RECENT_REPORTS = Number(process.env.DEBRIEF_BENCH_RECENT_REPORTS ?? READ_REPORTS);
/**
 * Concurrent readers. A dashboard is a handful of people, not 50 agents: latency under 50
 * connections on one process would measure queueing (50 × service time), not the query.
 */
export const READ_CONNECTIONS = 10;
/** Each row's request, unmeasured, before the first row is measured. */
const WARM_UP_SECONDS = 1;

const DAY = 86_400_000;
const EMAIL = 'bench-read@example.test';
const PASSWORD = 'correct horse battery staple';

export interface ReadResult extends LoadResult {
  scenario: string;
  targetMs: number;
}

export interface ReadRun {
  rows: ReadResult[];
  mixed: MixedRound[];
  seedSeconds: number;
  /** Whether the schema measured has report_rollups (seeded when it does). */
  rollups: boolean;
}

async function postJson(url: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/**
 * What a row's failures were: the status codes that were not 2xx, and the server's own warnings
 * and errors logged meanwhile (pino levels 40 and up), so a failed row says why.
 */
function logFailures(result: LoadResult, output: string, log: (line: string) => void): void {
  const statuses = Object.entries(result.failedStatuses);
  const socketErrors = result.failures - statuses.reduce((sum, [, n]) => sum + n, 0);
  log(
    `    failed: ${[...statuses.map(([code, n]) => `${n} × ${code}`), ...(socketErrors > 0 ? [`${socketErrors} socket errors (${result.timeouts} timed out)`] : [])].join(', ')}`,
  );
  const problems = output.split('\n').filter((line) => /"level":(4|5|6)0/.test(line));
  for (const line of problems.slice(0, 5)) log(`    server: ${line.slice(0, 500)}`);
}

/** A dashboard session: the cookie the console routes (timeseries, tools) need. */
async function signIn(server: CliServer): Promise<string> {
  const response = await postJson(`${server.url}/v1/auth/signin`, {
    email: EMAIL,
    password: PASSWORD,
  });
  const cookie = response.headers.getSetCookie()[0]?.split(';')[0];
  if (!response.ok || !cookie) throw new Error(`sign-in answered ${response.status}`);
  return cookie;
}

/**
 * Two projects of one account: the big one (READ_REPORTS over 90 days) and a busy one
 * (RECENT_REPORTS in the last hour). One report goes through the API first, so the server
 * writes the counter rows the seeder then copies the shape of (seed-counters.ts). The seeded
 * database serves every read row, then the ingest-under-reads row (last: it adds reports).
 */
export async function benchReads(
  database: BenchDatabase,
  timing: Timing,
  mixed: { timing: Timing; rounds: number },
  log: (line: string) => void,
): Promise<ReadRun> {
  const env = { DATABASE_URL: database.url };
  const big = await bootstrapCli(env, { email: EMAIL, project: 'Bench read', build: 'dist' });
  const recent = await bootstrapCli(env, { email: EMAIL, project: 'Bench recent', build: 'dist' });
  const quota = await runCli(
    ['account', 'set-quota', '--email', EMAIL, '--monthly', 'unlimited'],
    env,
    'dist',
  );
  if (quota.code !== 0) throw new Error(`set-quota failed: ${quota.stderr}`);
  const targets: ReadTargets = { bigProjectId: big.project.id, recentProjectId: recent.project.id };

  const probeServer = await startCliServer(env, 'dist');
  try {
    const probe = await postJson(
      `${probeServer.url}/v1/reports`,
      JSON.parse(ingestBody(recent.ingest_key)),
    );
    if (probe.status !== 201) throw new Error(`probe report answered ${probe.status}`);
  } finally {
    await probeServer.kill('SIGTERM');
  }

  const started = Date.now();
  const conn = await openSeedConnection(database.url);
  let rollups: boolean;
  try {
    const now = Date.now();
    await seedReports(conn, {
      projectId: targets.bigProjectId,
      count: READ_REPORTS,
      spanMs: 90 * DAY,
      // Ends a minute before the probe's: the busy project's hour stays the newest data.
      endMs: now - 60_000,
      rareOldest: true,
    });
    await seedReports(conn, {
      projectId: targets.recentProjectId,
      count: RECENT_REPORTS,
      spanMs: 3_600_000,
      endMs: now,
    });
    // Grouped first: rebuildCounters then vacuums the reports the grouping updated.
    await groupSeededReports(conn, [targets.bigProjectId, targets.recentProjectId]);
    rollups = await rebuildCounters(conn, [targets.bigProjectId, targets.recentProjectId]);
  } finally {
    await closeSeedConnection(conn);
  }
  const seedSeconds = (Date.now() - started) / 1000;
  log(
    `  seeded ${READ_REPORTS.toLocaleString('en')} + ${RECENT_REPORTS.toLocaleString('en')} recent reports and their counters${rollups ? ' and rollups' : ' (no report_rollups table)'} in ${seedSeconds.toFixed(1)} s`,
  );

  const server = await startCliServer(env, 'dist');
  try {
    const cookie = await signIn(server);
    // API clients read with a key; the console routes (timeseries, tools) take the session.
    const load = (scenario: ReadScenario) => {
      const headers: Record<string, string> = scenario.path.startsWith('/v1/console/')
        ? { cookie }
        : { authorization: `Bearer ${big.api_key}` };
      const url = `${server.url}${scenario.path}`;
      return { url, headers, serverPid: server.child.pid, connections: READ_CONNECTIONS };
    };
    // A server that has run a while, as a dashboard meets it: every row's request for a second
    // first, unmeasured, so the first row does not carry the warm-up of the whole read path
    // (JIT, connections, prepared plans). Measured without it (PostgreSQL, 300k reports): the
    // first row (page 1) p99 17 ms and 639 µs of CPU a read, 12 ms and 526 µs measured again
    // after the others.
    for (const scenario of readScenarios(targets)) {
      await measure({ ...load(scenario), warmupSeconds: 0, seconds: WARM_UP_SECONDS });
    }
    const rows: ReadResult[] = [];
    for (const scenario of readScenarios(targets)) {
      const logged = server.output().length;
      const result = await measure({ ...load(scenario), ...timing });
      rows.push({ scenario: scenario.name, targetMs: scenario.targetMs, ...result });
      log(
        `  ${scenario.name}: p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, ${result.cpuMicrosPerRequest === null ? 'n/a' : Math.round(result.cpuMicrosPerRequest)} µs CPU/req${result.failures ? `, ${result.failures} FAILED` : ''}`,
      );
      if (result.failures) logFailures(result, server.output().slice(logged), log);
    }
    log('  ingest while the dashboard reads:');
    const rounds = await benchIngestUnderReads(
      {
        serverUrl: server.url,
        serverPid: server.child.pid,
        ingestKey: recent.ingest_key,
        readPaths: dashboardReads(targets),
        // The session cookie for every reader: the dashboard's own reads, key-less.
        readHeaders: { cookie },
      },
      mixed.timing,
      mixed.rounds,
      log,
    );
    return { rows, mixed: rounds, seedSeconds, rollups };
  } finally {
    await server.kill('SIGTERM');
  }
}
