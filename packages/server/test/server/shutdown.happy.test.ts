import { request } from 'node:http';
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
} from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';
import { openSse } from '../support/sse-reader.js';

/**
 * Graceful shutdown: SIGTERM to `debrief serve` lets an in-flight request
 * finish, ends open event streams and exits 0 — instead of waiting for dashboards to leave.
 */
describe.each(DIALECTS)('SIGTERM on %s', (dialect) => {
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

  it('finishes the in-flight request, closes the event stream and exits 0', async () => {
    const env = { DATABASE_URL: database.url };
    const tenant = await bootstrapCli(env, { email: 'term@example.test', project: 'Term' });
    server = await startCliServer(env);
    const running = server;
    const stream = await openSse(
      `${running.url}/v1/dashboard/${tenant.project.id}/events`,
      bearer(tenant.api_key),
    );
    await stream.waitFor((e) => e.event === 'ready', 10_000, 'ready');

    // An in-flight request: its headers reach the server (it answers 100 Continue, which Node
    // does right before routing the request), then SIGTERM, then the body arrives.
    const body = JSON.stringify({
      ingest_key: tenant.ingest_key,
      outcome: 'success',
      details: 'sent across a shutdown',
    });
    const { port } = new URL(running.url);
    const inFlight = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v1/reports',
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            expect: '100-continue',
          },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => {
            text += chunk.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.on('continue', () => {
        running.child.kill('SIGTERM');
        // Give the shutdown a head start, so the body really arrives while it is under way.
        setTimeout(() => req.end(body), 300);
      });
      req.flushHeaders();
    });

    const answer = await inFlight;
    expect(answer.status, answer.text).toBe(201);
    await stream.ended; // the server ended the stream; the client did not close it
    const exit = await Promise.race([
      running.exited,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`no exit within 30 s:\n${running.output()}`)), 30_000),
      ),
    ]);
    expect(exit).toEqual({ code: 0, signal: null });
    server = null;

    // The report acknowledged during shutdown is there after a restart (in this process).
    restarted = await startTestServer(dialect, {}, { databaseUrl: database.url });
    const list = await call(`${restarted.url}/v1/dashboard/${tenant.project.id}/reports`, {
      headers: bearer(tenant.api_key),
    });
    expect(list.body.reports.map((r: { id: string }) => r.id)).toContain(
      JSON.parse(answer.text).id,
    );
  }, 60_000);
});
