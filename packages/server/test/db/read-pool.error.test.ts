import { ProblemDetails } from '@debrief/protocol';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import type { SqliteReaderPool } from '../../src/db/sqlite-reader-pool.js';
import { bearer, call } from '../support/http.js';
import { eventually, processAlive, startSlowReadServer } from '../support/slow-read.js';

/** The backend running the slow read on PostgreSQL, if one does. */
async function slowReadBackend(server: TestServer): Promise<number | undefined> {
  const { rows } = await sql<{ pid: number }>`
    select pid from pg_stat_activity
    where datname = current_database() and state = 'active'
      and query like '%pg_sleep(120)%' and pid <> pg_backend_pid()
  `.execute(server.ctx.db);
  return rows[0]?.pid;
}

/** Whether a backend (a connection) of this database still exists, busy or idle. */
async function backendExists(server: TestServer, pid: number): Promise<boolean> {
  const { rows } = await sql`select 1 from pg_stat_activity where pid = ${pid}`.execute(
    server.ctx.db,
  );
  return rows.length > 0;
}

/** The slow read still running on PostgreSQL (its marker is the pg_sleep of slow-read.ts). */
async function activeSlowReads(server: TestServer): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`
    select count(*) as n from pg_stat_activity
    where datname = current_database() and state = 'active'
      and query like '%pg_sleep(120)%' and pid <> pg_backend_pid()
  `.execute(server.ctx.db);
  return Number(rows[0]?.n);
}

describe.each(DIALECTS)('a read that runs too long or is abandoned is stopped (%s)', (dialect) => {
  /** A test server and the slow-read server beside it. */
  type Started = { server: TestServer; slow: Awaited<ReturnType<typeof startSlowReadServer>> };
  // Two servers for the file's tests: one whose reads time out after 1.5 s, and one whose read
  // timeout is a minute, for the cases that must not meet it.
  let timed: Started;
  let patient: Started;
  beforeAll(async () => {
    timed = await start({ READ_TIMEOUT_MS: '1500' });
    patient = await start({ READ_TIMEOUT_MS: '60000' });
  });
  afterAll(async () => {
    for (const started of [timed, patient]) {
      await started?.slow.close();
      await started?.server.close();
    }
  });

  async function start(env: Record<string, string>): Promise<Started> {
    const server = await startTestServer(dialect, env);
    return { server, slow: await startSlowReadServer(server.ctx) };
  }
  const poolOf = (server: TestServer) => server.ctx.database.readPool as SqliteReaderPool;
  const readerPids = (server: TestServer) => poolOf(server).pids();
  const busyReaders = (server: TestServer) => poolOf(server).busy();

  it('answers 503 read_timeout with Retry-After past READ_TIMEOUT_MS, and the next read works', async () => {
    const { server, slow } = timed;
    const tenant = await server.tenant();
    // A first read starts the reader processes (SQLite), so the time limit measures the read.
    await call(`${server.url}/v1/dashboard/${tenant.projectId}/reports`, {
      headers: bearer(tenant.apiKey),
    });
    const slowRead = call(slow.url);
    let running: number[] = [];
    if (dialect === 'sqlite') {
      expect(await eventually(() => busyReaders(server).length === 1, 15_000)).toBe(true);
      running = busyReaders(server);
    }
    const res = await slowRead;
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.headers.get('retry-after')).toBe('5');
    const body = ProblemDetails.parse(res.body);
    expect(body.code).toBe('read_timeout');
    expect(body.detail).toContain('1500 ms');

    if (dialect === 'sqlite') {
      // The reader that ran it was killed (its statement cannot be interrupted otherwise).
      expect(readerPids(server)).not.toContain(running[0]);
      expect(await eventually(() => !processAlive(running[0]!), 10_000)).toBe(true);
    } else {
      expect(await eventually(async () => (await activeSlowReads(server)) === 0, 10_000)).toBe(
        true,
      );
    }
    const after = await call(`${server.url}/v1/dashboard/${tenant.projectId}/reports`, {
      headers: bearer(tenant.apiKey),
    });
    expect(after.status).toBe(200);
  });

  // The read timeout is a minute: a read that stops within the waits below was stopped because
  // its client left, not by the timeout.
  it('stops the read of a request whose client went away, long before its read timeout', async () => {
    const { server, slow } = patient;
    const stoppedBefore = dialect === 'sqlite' ? poolOf(server).stopped : 0;
    const controller = new AbortController();
    const request = fetch(slow.url, { signal: controller.signal }).catch((error: Error) => error);
    // Wait until the read runs (a reader process busy with it, or the statement active).
    if (dialect === 'sqlite') {
      expect(await eventually(() => busyReaders(server).length === 1, 15_000)).toBe(true);
    } else {
      expect(await eventually(async () => (await activeSlowReads(server)) === 1, 15_000)).toBe(
        true,
      );
    }
    const running = dialect === 'sqlite' ? busyReaders(server) : [];
    const backend = dialect === 'postgres' ? await slowReadBackend(server) : undefined;
    controller.abort();
    expect(await request).toBeInstanceOf(Error);

    if (dialect === 'sqlite') {
      const pool = server.ctx.database.readPool as SqliteReaderPool;
      expect(await eventually(() => !processAlive(running[0]!), 15_000)).toBe(true);
      expect(pool.stopped).toBe(stoppedBefore + 1);
      expect(readerPids(server)).not.toContain(running[0]);
    } else {
      expect(await eventually(async () => (await activeSlowReads(server)) === 0, 15_000)).toBe(
        true,
      );
    }
    if (backend !== undefined) {
      // Its connection is closed, not handed to the next read: a cancel that landed late would
      // stop that read instead.
      expect(await eventually(async () => !(await backendExists(server, backend)), 15_000)).toBe(
        true,
      );
    }
  });

  it.runIf(dialect === 'sqlite')(
    'replaces a reader process that died (killed from outside): the next read works',
    async () => {
      const { server } = patient;
      const tenant = await server.tenant();
      // Under a date range: its counts are a report read, run by a reader process.
      const list = () =>
        call(`${server.url}/v1/dashboard/${tenant.projectId}/reports?from=2026-01-01`, {
          headers: bearer(tenant.apiKey),
        });
      expect((await list()).status).toBe(200);
      const [pid] = readerPids(server);
      process.kill(pid!, 'SIGKILL');
      expect(await eventually(() => !readerPids(server).includes(pid!), 5000)).toBe(true);
      expect((await list()).status).toBe(200);
      expect(readerPids(server)).not.toContain(pid);
      expect(readerPids(server).length).toBeGreaterThan(0);
    },
  );

  it.runIf(dialect === 'sqlite')(
    'refuses a read binding a value the reader processes cannot receive; values round-trip as bound',
    async () => {
      const pool = poolOf(patient.server);
      // Quotes, a backslash, a newline (the channel's delimiter), line and paragraph separators
      // and an emoji: JSON carries each as it was. (A lone surrogate does not survive SQLite's
      // UTF-8 itself, whatever the channel.)
      const TEXT = 'ünïcødé "quoted" \\ \n \u2028\u2029 🦉 end';
      const read = (text: string, parameters: unknown[]) =>
        pool.execute(CompiledQuery.raw(text, parameters), undefined);
      // The channel carries JSON: a bigint or a Buffer would arrive as something else.
      await expect(read('select count(*) as n from reports where rowid > ?', [1n])).rejects.toThrow(
        /cannot carry \(bigint\)/,
      );
      await expect(read('select ? as b', [Buffer.from('x')])).rejects.toThrow(
        /cannot carry \(object\)/,
      );
      const { rows } = await read('select ? as s, ? as n, ? as z, count(*) as c from reports', [
        TEXT,
        -12.5,
        null,
      ]);
      expect(rows).toEqual([{ s: TEXT, n: -12.5, z: null, c: 0 }]);
    },
  );
});
