import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { ReadCancel } from '../../src/db/read-cancel.js';
import type { SqliteReaderPool } from '../../src/db/sqlite-reader-pool.js';
import { bearer, call } from '../support/http.js';
import { eventually, startSlowReadServer } from '../support/slow-read.js';

const SLOW_READS = 10;
/** Not the default (2), so the test shows the setting is what bounds them. */
const PG_READ_CONNECTIONS = 3;

describe.each(DIALECTS)('reads never stall ingest (%s)', (dialect) => {
  let server: TestServer;
  let slow: Awaited<ReturnType<typeof startSlowReadServer>>;
  let controllers: AbortController[] = [];
  beforeAll(async () => {
    server = await startTestServer(dialect, {
      READ_TIMEOUT_MS: '60000',
      POSTGRES_READ_CONNECTIONS: String(PG_READ_CONNECTIONS),
    });
    slow = await startSlowReadServer(server.ctx);
  });
  afterEach(() => {
    for (const controller of controllers) controller.abort();
  });
  afterAll(async () => {
    await slow?.close();
    await server?.close();
  });

  it('answers submissions while 10 slow report reads are running, and reads them back after', async () => {
    const tenant = await server.tenant();

    controllers = Array.from({ length: SLOW_READS }, () => new AbortController());
    let settled = 0;
    const reads = controllers.map((controller) =>
      fetch(slow.url, { signal: controller.signal })
        .catch((error: Error) => error)
        .finally(() => settled++),
    );
    // Every reader busy with one (SQLite: 2 processes; PostgreSQL: POSTGRES_READ_CONNECTIONS
    // connections), the rest queued behind them in the server.
    if (dialect === 'sqlite') {
      const pool = server.ctx.database.readPool as SqliteReaderPool;
      expect(await eventually(() => pool.busy().length === 2, 15_000)).toBe(true);
    } else {
      const active = async () => {
        const { rows } = await sql<{ n: number | string }>`
          select count(*) as n from pg_stat_activity
          where datname = current_database() and state = 'active'
            and query like '%pg_sleep(120)%' and pid <> pg_backend_pid()
        `.execute(server.ctx.db);
        return Number(rows[0]?.n);
      };
      expect(await eventually(async () => (await active()) === PG_READ_CONNECTIONS, 15_000)).toBe(
        true,
      );
      // No more than that: the others wait for a turn instead of taking PostgreSQL's cores.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await active()).toBe(PG_READ_CONNECTIONS);
    }

    // Ingest goes on: each submission is stored and answered while every read still runs.
    for (let i = 0; i < 5; i++) {
      const res = await call(`${server.url}/v1/reports`, {
        body: { ingest_key: tenant.ingestKey, outcome: 'success', details: `during reads ${i}` },
      });
      expect(res.status).toBe(201);
      expect(settled).toBe(0);
    }
    // And so do the reads that are not report reads (the API key check, the project lookup).
    const projects = await call(`${server.url}/v1/projects`, { headers: bearer(tenant.apiKey) });
    expect(projects.status).toBe(200);
    expect(settled).toBe(0);

    // Abandoned, running and queued alike: every read ends, and its turn is free again (the
    // list below is a report read, which would wait forever for a turn that leaked).
    for (const controller of controllers) controller.abort();
    await Promise.all(reads);
    const list = await call<{ stats: { total: number } }>(
      `${server.url}/v1/dashboard/${tenant.projectId}/reports`,
      { headers: bearer(tenant.apiKey) },
    );
    expect(list.status).toBe(200);
    expect(list.body.stats.total).toBe(5);
  });

  it('carries the request cancel to the reads of real routes, past their authentication', async () => {
    const tenant = await server.tenant();
    const pool = server.ctx.database.readPool!;
    const execute = pool.execute;
    const seen: (ReadCancel | undefined)[] = [];
    pool.execute = (query, cancel) => {
      seen.push(cancel);
      return execute.call(pool, query, cancel);
    };
    try {
      const res = await call(
        `${server.url}/v1/dashboard/${tenant.projectId}/reports?from=2020-01-01`,
        { headers: bearer(tenant.apiKey) },
      );
      expect(res.status).toBe(200);
      const issues = await call(`${server.url}/v1/dashboard/${tenant.projectId}/issues`, {
        headers: bearer(tenant.apiKey),
      });
      expect(issues.status).toBe(200);
    } finally {
      pool.execute = execute;
    }
    // The stats count and the page, the issues: each report read ran with its request's cancel.
    expect(seen.length).toBeGreaterThan(0);
    for (const cancel of seen) expect(cancel).toBeInstanceOf(ReadCancel);
    expect(seen.every((cancel) => cancel?.cancelled === false)).toBe(true);
  });
});
