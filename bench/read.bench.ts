import { bootstrapCli, startCliServer } from '../test/harness/cli-process.js';
import type { BenchDatabase } from './databases.js';
import type { Timing } from './ingest.bench.js';
import { type LoadResult, measure } from './load.js';
import { RARE_TOOL_NAME, seedReports, TOOL_NAMES } from './seed.js';

export const READ_REPORTS = 100_000;
/**
 * Concurrent readers. A dashboard is a handful of people, not 50 agents: latency under 50
 * connections on one process would measure queueing (50 × service time), not the query.
 */
export const READ_CONNECTIONS = 10;

export interface ReadScenario {
  name: string;
  query: string;
}

export const READ_SCENARIOS: ReadScenario[] = [
  { name: 'page 1 + stats, no filter', query: '' },
  { name: 'outcome=failure', query: '?outcome=failure' },
  { name: `tool_name=${TOOL_NAMES[4]}`, query: `?tool_name=${TOOL_NAMES[4]}` },
  // One report, the oldest: a seek in the tool index, where a walk of the project's reports
  // newest first would visit all 100,000 (BENCHMARKS.md, item 7).
  {
    name: `tool_name=${RARE_TOOL_NAME} (1 report, the oldest)`,
    query: `?tool_name=${RARE_TOOL_NAME}`,
  },
  {
    name: 'source + from/to (last 7 days)',
    query: `?source=cursor&from=${new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10)}`,
  },
];

export interface ReadResult extends LoadResult {
  scenario: string;
}

/** Seeds a project with 100,000 reports, then measures GET …/reports for each scenario. */
export async function benchReads(
  database: BenchDatabase,
  timing: Timing,
  log: (line: string) => void,
): Promise<ReadResult[]> {
  const env = { DATABASE_URL: database.url };
  const tenant = await bootstrapCli(env, {
    email: 'bench-read@example.test',
    project: 'Bench read',
    build: 'dist',
  });
  const started = Date.now();
  await seedReports(database.url, tenant.project.id, READ_REPORTS);
  log(
    `  seeded ${READ_REPORTS.toLocaleString('en')} reports in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  const server = await startCliServer(env, 'dist');
  try {
    const results: ReadResult[] = [];
    for (const scenario of READ_SCENARIOS) {
      const result = await measure({
        url: `${server.url}/v1/dashboard/${tenant.project.id}/reports${scenario.query}`,
        headers: { authorization: `Bearer ${tenant.api_key}` },
        serverPid: server.child.pid,
        connections: READ_CONNECTIONS,
        ...timing,
      });
      results.push({ scenario: scenario.name, ...result });
      log(`  ${scenario.name}: p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms`);
    }
    return results;
  } finally {
    await server.kill('SIGTERM');
  }
}
