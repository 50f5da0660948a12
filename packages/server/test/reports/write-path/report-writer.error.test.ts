import { rmSync, writeFileSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { createApp } from '@debrief/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../../test/harness/test-server.js';
import { openMigratedDatabase } from '../../../src/db/migrate.js';
import {
  createSqliteReportWriter,
  startWriterThread,
} from '../../../src/reports/write-path/sqlite/sqlite-report-writer.js';
import { call } from '../../support/http.js';
import { submission } from '../../support/submissions.js';

const UNKNOWN_KEY = `wk_${'0'.repeat(32)}`;

/**
 * The SQLite writer thread when it cannot run (reports/sqlite-report-writer.ts): a thread that
 * cannot open the file fails start-up and every submission at once, and is retried with a back-off
 * instead of once per request; a thread that dies after starting is replaced.
 */
describe('SQLite report writer that cannot open its file', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
  });
  afterAll(() => database.drop());

  it('fails ready() and submissions with the cause, then starts once the file is readable', async () => {
    writeFileSync(database.url, 'not a database, but a text file in its place\n'.repeat(200));
    let threads = 0;
    const writer = createSqliteReportWriter(database.url, {
      limits: { freeTier: null, addressDailyShare: 100 },
      sync: 'normal',
      startThread: (data) => {
        threads += 1;
        return startWriterThread(data);
      },
    });
    try {
      await expect(writer.ready()).rejects.toThrow(/could not open .*not a database/);
      expect(writer.unavailable()).toMatch(/not a database/);
      // Refused at once, without a thread each: the one retry waits for its back-off.
      const refused = await Promise.allSettled(
        Array.from({ length: 20 }, () => writer.submit(submission(UNKNOWN_KEY))),
      );
      expect(refused.every((r) => r.status === 'rejected' && /not a database/.test(r.reason))).toBe(
        true,
      );
      expect(threads).toBe(1);

      // The operator puts a real database in place; the retry (after 1 s) finds it.
      rmSync(database.url);
      await (await openMigratedDatabase(database.url)).database.close();
      await expect
        .poll(() => writer.unavailable(), { timeout: 15_000, message: 'the writer to start' })
        .toBeNull();
      expect(threads).toBe(2);
      expect(await writer.submit(submission(UNKNOWN_KEY))).toEqual({ status: 'unknown_key' });
    } finally {
      await writer.close();
    }
  });
});

describe('SQLite report writer whose thread dies', () => {
  it('stores the next submissions in a new thread', async () => {
    const server = await startTestServer('sqlite');
    const threads: Worker[] = [];
    const writer = createSqliteReportWriter(server.ctx.database.sqlitePath!, {
      limits: { freeTier: null, addressDailyShare: 100 },
      sync: 'normal',
      startThread: (data) => {
        const thread = startWriterThread(data);
        threads.push(thread);
        return thread;
      },
    });
    try {
      await writer.ready();
      const t = await server.tenant();
      expect((await writer.submit(submission(t.ingestKey))).status).toBe('stored');

      await threads[0]!.terminate();
      await expect
        .poll(() => threads.length, { timeout: 15_000, message: 'a second thread' })
        .toBe(2);
      expect(writer.unavailable()).toBeNull();
      expect(await writer.submit(submission(UNKNOWN_KEY))).toEqual({ status: 'unknown_key' });
    } finally {
      await writer.close();
      await server.close();
    }
  });
});

describe('a server whose report writer cannot open the file', () => {
  let server: TestServer;
  let broken: TestDatabase;
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
    broken = await createTestDatabase('sqlite');
    writeFileSync(broken.url, 'not a database\n'.repeat(500));
    const reportWriter = createSqliteReportWriter(broken.url, {
      limits: { freeTier: null, addressDailyShare: 100 },
      sync: 'normal',
    });
    await reportWriter.ready().catch(() => {});
    const app = await createApp({ ...server.ctx, reportWriter });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    close = async () => {
      await app.close();
      await reportWriter.close();
    };
  });
  afterAll(async () => {
    await close();
    await broken.drop();
    await server.close();
  });

  it('is not ready, and says why without naming the file', async () => {
    const response = await call<{ code: string; detail: string }>(`${url}/readyz`);
    expect(response.status).toBe(503);
    expect(response.body.code).toBe('service_unavailable');
    expect(response.body.detail).toMatch(/report writer cannot write to the database/);
    expect(JSON.stringify(response.body)).not.toContain(broken.url);
  });

  // A database the writer cannot use is a 503 the agent may retry, not a 500.
  it('answers a submission at once with a 503 problem and Retry-After', async () => {
    const t = await server.tenant();
    const response = await call(`${url}/v1/reports`, {
      body: {
        ingest_key: t.ingestKey,
        outcome: 'success',
        details: 'sent while the writer is down',
      },
    });
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ code: 'service_unavailable' });
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(JSON.stringify(response.body)).not.toContain(broken.url);
  });
});
