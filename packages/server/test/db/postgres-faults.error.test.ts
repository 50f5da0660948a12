import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Bootstrapped,
  bootstrapCli,
  type CliServer,
  startCliServer,
} from '../../../../test/harness/cli-process.js';
import { DIALECTS } from '../../../../test/harness/databases.js';
import {
  type PostgresCluster,
  startPostgresCluster,
} from '../../../../test/harness/postgres-cluster.js';
import { startTrickle, storedIds } from '../support/fault-trickle.js';
import { bearer, call } from '../support/http.js';
import { openSse } from '../support/sse-reader.js';

/**
 * On PostgreSQL a dropped connection must not end the process (a pool without an 'error'
 * listener would), nor leave it down when the database comes back. Played on the real
 * `debrief serve` process under a trickle of submits: it must stay up, answer 503 with
 * Retry-After (never 500) while it cannot store, and store again by itself afterwards, without
 * losing an acknowledged report.
 */
describe.skipIf(!DIALECTS.includes('postgres'))('PostgreSQL faults', () => {
  // One `debrief serve` for both cases, on a cluster of its own: the outage must not touch the
  // other tests' databases. The outage comes second, on the process the terminations left.
  let cluster: PostgresCluster | null = null;
  let server: CliServer | null = null;
  let tenant: Bootstrapped;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
    const env = { DATABASE_URL: cluster.url, FREE_TIER_MONTHLY_REPORTS: 'unlimited' };
    tenant = await bootstrapCli(env, { email: 'pgfaults@example.test', project: 'Faults' });
    server = await startCliServer(env);
  });
  afterAll(async () => {
    await server?.kill('SIGKILL');
    cluster?.stop();
  });

  function expectHonest(
    answers: { status: number; retryAfter: string | null; code: string | null }[],
  ) {
    const statuses = new Set(answers.map((a) => a.status));
    // 0 would be a connection the server dropped: the process died or hung up.
    expect([...statuses].filter((s) => s !== 201 && s !== 503)).toEqual([]);
    for (const answer of answers.filter((a) => a.status === 503)) {
      expect(answer.code).toBe('service_unavailable');
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    }
  }

  it('survives pg_terminate_backend of every connection: stays up, stores again, re-LISTENs', async () => {
    const running = server!;
    const stream = await openSse(
      `${running.url}/v1/dashboard/${tenant.project.id}/events`,
      bearer(tenant.api_key),
    );
    await stream.waitFor((e) => e.event === 'ready', 10_000, 'ready');
    const trickle = startTrickle(running.url, tenant.ingest_key);
    try {
      await trickle.waitFor(201, 10, 0, 20_000);

      const admin = new pg.Client({ connectionString: cluster!.url });
      await admin.connect();
      let terminated = 0;
      for (let round = 0; round < 3; round++) {
        const { rowCount } = await admin.query(
          'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
        );
        terminated += rowCount ?? 0;
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      await admin.end();
      // The pool's connections and the LISTEN connection were there to be terminated.
      expect(terminated).toBeGreaterThanOrEqual(2);
      const after = Date.now();

      await trickle.waitFor(201, 10, after, 20_000);
      // The LISTEN connection is back: a report stored after the terminations reaches the stream.
      await expect
        .poll(
          () => {
            const late = new Set(
              trickle.answers
                .filter((a) => a.status === 201 && a.at >= after + 1000)
                .map((a) => a.id),
            );
            return stream.events.some((e) => e.event === 'report' && late.has(e.id));
          },
          {
            timeout: 20_000,
            interval: 100,
            message: 'an event of a report stored after re-LISTEN',
          },
        )
        .toBe(true);
    } finally {
      await trickle.stop();
      stream.close();
    }
    expect(running.child.exitCode).toBeNull();
    expect(running.child.signalCode).toBeNull();
    expectHonest(trickle.answers);

    const acknowledged = trickle.answers.filter((a) => a.status === 201).map((a) => a.id!);
    const found = await storedIds(running.url, tenant.project.id, tenant.api_key);
    expect(acknowledged.filter((id) => !found.has(id))).toEqual([]);
  }, 120_000);

  it('answers 503 during an outage, is not ready, and resumes by itself when PostgreSQL is back', async () => {
    const running = server!;
    const postgres = cluster!;
    const trickle = startTrickle(running.url, tenant.ingest_key);
    try {
      await trickle.waitFor(201, 10, 0, 20_000);

      postgres.stopServer();
      const down = Date.now();
      await trickle.waitFor(503, 5, down, 20_000);
      const ready = await call(`${running.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ code: 'service_unavailable' });
      expect(Number(ready.headers.get('retry-after'))).toBeGreaterThan(0);

      postgres.startServer();
      const up = Date.now();
      await trickle.waitFor(201, 10, up, 30_000);
      await expect
        .poll(async () => (await call(`${running.url}/readyz`)).status, { timeout: 15_000 })
        .toBe(200);
    } finally {
      await trickle.stop();
    }
    expect(running.child.exitCode).toBeNull();
    expect(running.child.signalCode).toBeNull();
    expectHonest(trickle.answers);

    const acknowledged = trickle.answers.filter((a) => a.status === 201).map((a) => a.id!);
    const found = await storedIds(running.url, tenant.project.id, tenant.api_key);
    expect(acknowledged.filter((id) => !found.has(id))).toEqual([]);
  }, 180_000);
});
