/**
 * The delay from a new issue's first report (its `201`) to a webhook receiver's request, on
 * the built server (`npm start`), as the notifications' target states it (p99 ≤ 2 s on SQLite,
 * ≤ 3 s on PostgreSQL): ISSUES reports, each opening an issue of its own, one every PACE_MS,
 * with a webhook destination for `issue.created` on a receiver in this process. Run it with
 * `npm run bench:notify` (`DEBRIEF_BENCH_POSTGRES=1` adds PostgreSQL).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bootstrapCli, startCliServer } from '../test/harness/cli-process.js';
import {
  type BenchDatabase,
  type BenchDialect,
  postgresDatabase,
  sqliteDatabase,
  startPostgresCluster,
} from './databases.js';

const ISSUES = 60;
const PACE_MS = 200;

async function measure(dialect: BenchDialect, database: BenchDatabase): Promise<number[]> {
  const arrived = new Map<string, number>();
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      arrived.set(body.data.report.id, Date.now());
      response.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const env = { DATABASE_URL: database.url, ALLOW_PRIVATE_DESTINATIONS: 'true' };
  const tenant = await bootstrapCli(env, {
    email: 'notify@bench.test',
    project: 'Notify',
    build: 'dist',
    scopes: 'read,admin',
  });
  const server = await startCliServer(env, 'dist');
  try {
    const created = await fetch(`${server.url}/v1/dashboard/${tenant.project.id}/destinations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'webhook', url: hook, events: ['issue.created'] }),
    });
    if (created.status !== 201)
      throw new Error(`destination: ${created.status} ${await created.text()}`);
    const sent = new Map<string, number>();
    for (let i = 0; i < ISSUES; i += 1) {
      const res = await fetch(`${server.url}/v1/reports`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          ingest_key: tenant.ingest_key,
          outcome: 'failure',
          tool_name: `tool_${i}`,
          details: `tool ${i} could not open the file it was given`,
        }),
      });
      const { id } = (await res.json()) as { id: string };
      sent.set(id, Date.now());
      await new Promise((resolve) => setTimeout(resolve, PACE_MS));
    }
    const until = Date.now() + 30_000;
    while (arrived.size < ISSUES && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    console.log(`${dialect}: ${arrived.size} of ${ISSUES} notifications arrived`);
    return [...sent].map(([id, at]) => (arrived.get(id) ?? Number.POSITIVE_INFINITY) - at);
  } finally {
    await server.kill('SIGTERM');
    receiver.close();
  }
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

const dialects: BenchDialect[] =
  process.env.DEBRIEF_BENCH_POSTGRES === '1' ? ['sqlite', 'postgres'] : ['sqlite'];
const cluster = dialects.includes('postgres')
  ? await startPostgresCluster({ durable: true })
  : null;
try {
  for (const dialect of dialects) {
    const database =
      dialect === 'postgres' && cluster
        ? await postgresDatabase(cluster, 'bench_notify')
        : sqliteDatabase();
    try {
      const delays = (await measure(dialect, database)).sort((a, b) => a - b);
      console.log(
        `${dialect}: new issue → receiver, ms: p50 ${quantile(delays, 0.5)}, p99 ${quantile(delays, 0.99)}, max ${delays[delays.length - 1]}`,
      );
    } finally {
      await database.drop();
    }
  }
} finally {
  await cluster?.stop();
}
