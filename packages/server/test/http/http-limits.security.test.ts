import { PROBLEM_CONTENT_TYPE, ProblemDetails } from '@debrief/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { RawConnection, rawGet } from '../support/raw-http.js';

/**
 * Timeouts and connection limits (a slow body must not hold its connection for minutes), and
 * the answers Node and Fastify give by themselves, checked over real
 * sockets. The HTTP layer is the same on both dialects, so this runs on SQLite only. Limits are
 * shortened so the test is quick; the defaults are in config.happy.test.ts.
 */
const LIMITS = {
  REQUEST_TIMEOUT_MS: '1500',
  HEADERS_TIMEOUT_MS: '800',
  MAX_CONNECTIONS_PER_ADDRESS: '4',
  MAX_REQUESTS_PER_CONNECTION: '3',
};

function expectProblem(
  response: { status: number; headers: Record<string, string>; json: unknown },
  status: number,
  code: string,
) {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toContain(PROBLEM_CONTENT_TYPE);
  const body = ProblemDetails.parse(response.json);
  expect(body).toMatchObject({ ok: false, status, code });
  return body;
}

describe('HTTP limits', () => {
  let server: TestServer;
  const connections: RawConnection[] = [];
  const open = async () => {
    const connection = await RawConnection.open(server.url);
    connections.push(connection);
    return connection;
  };

  beforeAll(async () => {
    server = await startTestServer('sqlite', LIMITS);
  });
  afterEach(async () => {
    const closing = connections.splice(0);
    for (const connection of closing) connection.destroy();
    await Promise.all(closing.map((connection) => connection.closed));
    await new Promise((resolve) => setTimeout(resolve, 50)); // the server sees the closes
  });
  afterAll(() => server.close());

  it('closes a slow-body connection after the request timeout with a 408 problem', async () => {
    const tenant = await server.tenant();
    const body = JSON.stringify({
      ingest_key: tenant.ingestKey,
      outcome: 'success',
      details: 'x'.repeat(200),
    });
    const slow = await open();
    slow.write(
      `POST /v1/reports HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
    );
    // One byte every 100 ms: never idle, never done (a slowloris body).
    let sent = 0;
    const drip = setInterval(() => slow.write(body.slice(sent, ++sent)), 100);
    let sentBeforeAnswer = 0;
    try {
      const response = await slow.response(10_000);
      sentBeforeAnswer = sent;
      // A 408 names the limits it enforces.
      const body408 = expectProblem(response, 408, 'request_timeout');
      expect(body408.detail).toContain('1.5 s');
      await slow.closed;
    } finally {
      clearInterval(drip);
    }
    // The server read the body as it came and answered mid-body: the drip never finished it.
    expect(sentBeforeAnswer).toBeGreaterThan(0);
    expect(sentBeforeAnswer).toBeLessThan(body.length);
    // Nothing was stored. (Raw, not fetch: fetch's pool would keep a connection open, and the
    // cap test below counts every open connection from this address.)
    const reader = await open();
    reader.write(
      rawGet(`/v1/dashboard/${tenant.projectId}/reports`, {
        authorization: `Bearer ${tenant.apiKey}`,
      }),
    );
    expect((await reader.response()).json.stats.total).toBe(0);
  });

  it('closes a connection whose headers do not arrive in time with a 408 problem', async () => {
    const slow = await open();
    slow.write('GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n');
    const response = await slow.response(10_000);
    const problem = expectProblem(response, 408, 'request_timeout');
    expect(problem.detail).toContain('0.8 s');
    await slow.closed;
  });

  it('answers headers over 16 KiB with a 431 problem', async () => {
    const connection = await open();
    connection.write(rawGet('/healthz', { 'x-filler': 'a'.repeat(20_000) }));
    const response = await connection.response();
    expectProblem(response, 431, 'headers_too_large');
    await connection.closed;
  });

  it('answers malformed HTTP with a 400 problem', async () => {
    const connection = await open();
    connection.write('THIS IS NOT HTTP\r\n\r\n');
    expectProblem(await connection.response(), 400, 'bad_request');
    await connection.closed;
  });

  it('ends a connection after its last allowed request', async () => {
    const connection = await open();
    for (let i = 1; i <= 3; i++) {
      connection.write(rawGet('/healthz'));
      const response = await connection.response();
      expect(response.status).toBe(200);
      expect(response.headers.connection).toBe(i < 3 ? 'keep-alive' : 'close');
    }
    await connection.closed;
  });

  it('caps open connections per address with a 429 problem, and frees a slot on close', async () => {
    const held: RawConnection[] = [];
    for (let i = 0; i < 4; i++) {
      const connection = await open();
      connection.write(rawGet('/healthz'));
      expect((await connection.response()).status).toBe(200); // kept alive, still open
      held.push(connection);
    }
    const fifth = await open();
    fifth.write(rawGet('/healthz'));
    const refused = await fifth.response();
    const body = expectProblem(refused, 429, 'rate_limited');
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers.connection).toBe('close');
    expect(body.detail).toContain('More than 4 connections');
    await fifth.closed;

    // An over-cap connection that sends nothing is closed by the server itself, not held.
    const silent = await open();
    await silent.closed;

    held[0]?.destroy();
    await held[0]?.closed;
    await new Promise((resolve) => setTimeout(resolve, 50)); // the server sees the close
    const next = await open();
    next.write(rawGet('/healthz'));
    expect((await next.response()).status).toBe(200);
  });
});

describe('HTTP limits behind a trusted proxy', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { ...LIMITS, TRUST_PROXY: '127.0.0.1' });
  });
  afterAll(() => server.close());

  it('do not cap the connections of a proxy TRUST_PROXY names (it carries many clients)', async () => {
    const held: RawConnection[] = [];
    try {
      for (let i = 0; i < 6; i++) {
        const connection = await RawConnection.open(server.url);
        held.push(connection);
        connection.write(rawGet('/healthz'));
        expect((await connection.response()).status).toBe(200);
      }
    } finally {
      for (const connection of held) connection.destroy();
    }
  });
});

describe('HTTP server shutdown', () => {
  it('answers a request that arrives while it drains with a 503 problem and Retry-After', async () => {
    const server = await startTestServer('sqlite', LIMITS);
    const tenant = await server.tenant();
    const body = JSON.stringify({ ingest_key: tenant.ingestKey, outcome: 'success', details: 'd' });
    // A request in flight (headers sent, body held) keeps the server draining; a second request
    // pipelined behind it arrives during the drain.
    const connection = await RawConnection.open(server.url);
    try {
      connection.write(
        `POST /v1/reports HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      const closing = server.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
      connection.write(body + rawGet('/healthz'));
      expect((await connection.response()).status).toBe(201);
      const refused = await connection.response();
      expectProblem(refused, 503, 'service_unavailable');
      expect(refused.headers['retry-after']).toBe('5');
      await closing;
    } finally {
      connection.destroy();
    }
  });
});
