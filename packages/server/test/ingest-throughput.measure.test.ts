import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresCluster,
  startPostgresCluster,
} from '../../../test/harness/postgres-cluster.js';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';

/**
 * Not a test of behaviour: a short, bounded measurement of PostgreSQL ingest through the
 * in-process app (2,000 submits at concurrency 50, Fastify's inject, no sockets), on a cluster
 * of its own with PostgreSQL's default durability (fsync and synchronous_commit on). Skipped
 * unless DEBRIEF_MEASURE_INGEST=1; prints req/s and p50/p99. `npm run bench` is the real one.
 * DEBRIEF_MEASURE_DIALECT=sqlite measures a SQLite file instead (the cluster then idles).
 */
const MEASURE = process.env.DEBRIEF_MEASURE_INGEST === '1';
const TOTAL = 2000;
const CONCURRENCY = 50;

describe.skipIf(!MEASURE)('PostgreSQL ingest throughput (measurement)', () => {
  let cluster: PostgresCluster;
  let server: TestServer;
  beforeAll(async () => {
    cluster = await startPostgresCluster({ durable: true });
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query('create database measure');
    await admin.end();
    server =
      process.env.DEBRIEF_MEASURE_DIALECT === 'sqlite'
        ? await startTestServer('sqlite')
        : await startTestServer(
            'postgres',
            {},
            { databaseUrl: cluster.url.replace(/\/[^/]*$/, '/measure') },
          );
  });
  afterAll(async () => {
    await server?.close();
    cluster?.stop();
  });

  it(`stores ${TOTAL} reports at concurrency ${CONCURRENCY}`, { timeout: 120_000 }, async () => {
    const t = await server.tenant({ monthlyQuota: 1_000_000 });
    const submit = async (i: number) => {
      const started = performance.now();
      const res = await server.app.inject({
        method: 'POST',
        url: '/v1/reports',
        payload: { ingest_key: t.ingestKey, outcome: 'success', details: `measured ${i}` },
      });
      if (res.statusCode !== 201) throw new Error(`${res.statusCode} ${res.body}`);
      return performance.now() - started;
    };
    for (let i = 0; i < 100; i++) await submit(-i); // warm-up: caches, JIT, pool
    let next = 0;
    const latencies: number[] = [];
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < TOTAL) latencies.push(await submit(next++));
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const at = (q: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
    console.log(
      `${server.ctx.database.dialect} ingest: ${Math.round(TOTAL / seconds)} req/s, p50 ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms`,
    );
    expect(latencies).toHaveLength(TOTAL);
  });
});
