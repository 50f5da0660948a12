import { Writable } from 'node:stream';
import { buildContext, createApp, createLogger, loadConfig } from '@debrief/server';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../test/harness/databases.js';
import { createTenant } from '../../../../test/harness/test-server.js';
import { bearer } from '../support/http.js';

describe('logs', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
  });
  afterAll(() => database.drop());

  /** Runs `use` against an app whose log lines (at `level`) are collected in `lines`. */
  async function withLoggedApp(
    level: string,
    use: (
      app: FastifyInstance,
      ctx: Awaited<ReturnType<typeof buildContext>>,
      lines: string[],
    ) => Promise<void>,
  ): Promise<void> {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: level });
    const log = createLogger(config, sink);
    const ctx = await buildContext(config, log);
    const app = await createApp(ctx, { logger: log });
    try {
      await use(app, ctx, lines);
    } finally {
      await app.close();
      await ctx.close();
    }
  }

  it('bind each request line to its request id', async () => {
    await withLoggedApp('debug', async (app, _ctx, lines) => {
      await app.inject({ url: '/healthz' });
      await app.inject({ method: 'POST', url: '/v1/reports', payload: '{' });
      const requests = lines
        .map((line) => JSON.parse(line) as { msg: string; reqId?: string; url?: string })
        .filter((line) => line.msg === 'request');
      expect(requests.map((line) => line.url)).toEqual(['/healthz', '/v1/reports']);
      expect(requests[0]!.reqId).toEqual(expect.any(String));
      expect(requests[1]!.reqId).toEqual(expect.any(String));
      expect(requests[0]!.reqId).not.toBe(requests[1]!.reqId);
    });
  });

  it('never contain keys, even at trace level and on errors', async () => {
    await withLoggedApp('trace', async (app, ctx, lines) => {
      const t = await createTenant(ctx);
      await app.inject({
        method: 'POST',
        url: '/v1/reports',
        payload: { ingest_key: t.ingestKey, outcome: 'success', details: 'x' },
      });
      await app.inject({
        method: 'POST',
        url: '/v1/reports',
        payload: { ingest_key: t.apiKey, outcome: 'success', details: 'x' },
      });
      await app.inject({ url: '/v1/projects', headers: bearer(t.apiKey) });
      await app.inject({ url: '/v1/projects', headers: bearer(`${t.apiKey.slice(0, -2)}zz`) });
      await app.inject({
        url: `/v1/dashboard/${t.projectId}/reports?from=nope`,
        headers: bearer(t.apiKey),
      });
      app.log.info(
        { req: { headers: { authorization: `Bearer ${t.apiKey}` } }, ingest_key: t.ingestKey },
        'defence in depth',
      );
      const output = lines.join('');
      expect(output.length).toBeGreaterThan(0);
      expect(output).not.toContain(t.apiKey.slice(6));
      expect(output).not.toContain(t.ingestKey.slice(3));
      expect(output).toContain('[redacted]');
    });
  });
});
