import { ReportList } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bootstrapCli,
  type CliServer,
  startCliServer,
} from '../../../../test/harness/cli-process.js';
import {
  createTestDatabase,
  DIALECTS,
  type TestDatabase,
  type TestDialect,
} from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import type { SqliteSync } from '../../src/config.js';
import { bearer, call } from '../support/http.js';

/**
 * DESIGN §2: a 201 means the report is committed and survives `kill -9` of the server. The real
 * CLI server runs as a child process; it is killed with SIGKILL (no shutdown code runs), while
 * requests are still in flight, then a server starts in this process on the same database.
 * SQLite runs with each `SQLITE_SYNC`: under `normal` (the default) a commit is fsynced within
 * 50 ms of its 201, not before, and `kill -9` must lose nothing all the same.
 */
interface Case {
  name: string;
  dialect: TestDialect;
  sync?: SqliteSync;
}
const CASES = DIALECTS.flatMap((dialect): Case[] =>
  dialect === 'sqlite'
    ? [
        { name: 'sqlite, SQLITE_SYNC=normal', dialect, sync: 'normal' },
        { name: 'sqlite, SQLITE_SYNC=full', dialect, sync: 'full' },
      ]
    : [{ name: dialect, dialect }],
);

describe.each(CASES)('durability on $name', ({ dialect, sync }) => {
  let database: TestDatabase;
  let server: CliServer | null = null;
  let restarted: TestServer | null = null;
  beforeAll(async () => {
    database = await createTestDatabase(dialect, { migrated: true });
  });
  afterAll(async () => {
    await server?.kill('SIGKILL');
    await restarted?.close();
    await database.drop();
  });

  it('finds every acknowledged report after kill -9 and a restart', async () => {
    const env = {
      DATABASE_URL: database.url,
      FREE_TIER_MONTHLY_REPORTS: 'unlimited',
      ...(sync ? { SQLITE_SYNC: sync } : {}),
    };
    const tenant = await bootstrapCli(env, { email: 'durable@example.test', project: 'Durable' });
    server = await startCliServer(env);
    // The start-up line says which setting the server runs with.
    if (sync) expect(server.output()).toContain(`"sqliteSync":"${sync}"`);
    const submit = (url: string, i: number) =>
      call(`${url}/v1/reports`, {
        body: {
          ingest_key: tenant.ingest_key,
          outcome: i % 2 ? 'failure' : 'success',
          details: `durable report ${i}`,
          tool_name: `tool_${i % 7}`,
        },
      });

    const acknowledged: string[] = [];
    // 200 reports: some one by one, most in concurrent bursts of 50.
    for (let i = 0; i < 20; i++) {
      const res = await submit(server.url, i);
      expect(res.status).toBe(201);
      acknowledged.push(res.body.id);
    }
    for (let burst = 0; burst < 4; burst++) {
      const results = await Promise.all(
        Array.from({ length: 45 }, (_, j) => submit(server!.url, 20 + burst * 45 + j)),
      );
      for (const res of results) {
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        acknowledged.push(res.body.id);
      }
    }
    expect(acknowledged).toHaveLength(200);

    // One more burst, killed while in flight: whatever was acknowledged before the kill counts.
    const url = server.url;
    let answered = 0;
    const victim = server;
    const inFlight = Array.from({ length: 60 }, (_, j) =>
      submit(url, 1000 + j).then(
        (res) => {
          if (res.status === 201) acknowledged.push(res.body.id);
          if (++answered === 10) victim.child.kill('SIGKILL');
        },
        () => {}, // the connection died with the process: not acknowledged
      ),
    );
    await Promise.all(inFlight);
    const exit = await victim.kill('SIGKILL');
    expect(exit.signal).toBe('SIGKILL');
    expect(acknowledged.length).toBeGreaterThanOrEqual(210);

    server = null;
    // The restart runs in this process, on the database the killed process left.
    restarted = await startTestServer(dialect, {}, { databaseUrl: database.url });
    const found = new Set<string>();
    for (let page = 1; ; page++) {
      const res = await call(
        `${restarted.url}/v1/dashboard/${tenant.project.id}/reports?limit=100&page=${page}`,
        { headers: bearer(tenant.api_key) },
      );
      expect(res.status).toBe(200);
      const list = ReportList.parse(res.body);
      for (const report of list.reports) found.add(report.id);
      if (list.reports.length < 100) break;
    }
    const missing = acknowledged.filter((id) => !found.has(id));
    expect(missing).toEqual([]);
  }, 120_000);
});
