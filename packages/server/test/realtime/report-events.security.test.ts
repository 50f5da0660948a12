import { connect } from 'node:net';
import { PROBLEM_CONTENT_TYPE } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';
import {
  eventually,
  openRawEventStream,
  type RawEventStream,
} from '../support/raw-event-stream.js';
import { openSse } from '../support/sse-reader.js';

/**
 * Event streams that cannot hurt the server. A reader that stops reading would otherwise have
 * every report buffered for it without limit, until the process runs out of memory: each stream
 * holds at most STREAM_BUFFER_BYTES, and a slower reader is dropped with a final `overflow`
 * event telling it where to resume. How many streams one account opens is limited by a 429.
 */

/** 10,000 three-byte characters: a 30 KB report, the largest `details` allows. */
const BIG_DETAILS = '€'.repeat(10_000);
const CAP = 1_048_576; // STREAM_BUFFER_BYTES' default, as in production
/** Past the cap, a stream may still take the final event and a heartbeat. */
const SLACK = 16 * 1024;

async function submitBig(server: TestServer, tenant: Tenant, count: number, parallel = 1) {
  const ids: string[] = [];
  for (let i = 0; i < count; i += parallel) {
    const answers = await Promise.all(
      Array.from({ length: Math.min(parallel, count - i) }, () =>
        call(`${server.url}/v1/reports`, {
          body: { ingest_key: tenant.ingestKey, outcome: 'failure', details: BIG_DETAILS },
        }),
      ),
    );
    for (const answer of answers) {
      expect(answer.status).toBe(201);
      ids.push(answer.body.id);
    }
  }
  return ids;
}

/**
 * Big reports (`parallel` at a time) until no stream of the server is open any more: every
 * stalled one has been dropped at its cap, once the kernel's socket buffers (a few MB on
 * loopback) are full. Then `after` more, which only a resume can deliver. `each` runs after
 * every round (the bound on bytes buffered is checked there).
 */
async function submitUntilDropped(
  server: TestServer,
  tenant: Tenant,
  {
    parallel = 1,
    after = 0,
    each = () => {},
  }: { parallel?: number; after?: number; each?: () => void },
) {
  const ids: string[] = [];
  while (server.app.eventStreams.stats().open > 0) {
    // ~200 reports (6 MB) do it here; 18 MB for each stream is far past what any loopback holds.
    if (ids.length >= 600) throw new Error('the stalled streams were not dropped by 600 reports');
    ids.push(...(await submitBig(server, tenant, 10, parallel)));
    each();
  }
  ids.push(...(await submitBig(server, tenant, after, parallel)));
  return ids;
}

async function openStalled(server: TestServer, tenant: Tenant, headers = {}) {
  const stream = await openRawEventStream(`${server.url}/v1/dashboard/${tenant.projectId}/events`, {
    ...bearer(tenant.apiKey),
    ...headers,
  });
  expect(stream.status).toBe(200);
  await eventually(() => stream.events().some((e) => e.event === 'ready'), 5000, 'ready event');
  stream.pause();
  return stream;
}

describe.each(DIALECTS)('event streams under a stalled reader on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server?.close());

  it('drops 20 stalled readers once each is a buffer cap behind, and bytes buffered stay bounded', async () => {
    const t = await server.tenant();
    const stalled: RawEventStream[] = [];
    for (let i = 0; i < 20; i++) stalled.push(await openStalled(server, t));
    expect(server.app.eventStreams.stats().open).toBe(20);

    // Reports of 30 KB until every stream is dropped: before the fix every byte of it waited
    // in Node's memory, for every stream.
    let maxBuffered = 0;
    const measure = () => {
      maxBuffered = Math.max(maxBuffered, server.app.eventStreams.stats().bufferedBytes);
    };
    await submitUntilDropped(server, t, { parallel: 5, each: measure });
    const stats = server.app.eventStreams.stats();
    maxBuffered = Math.max(maxBuffered, stats.bufferedBytes);
    expect(maxBuffered).toBeLessThanOrEqual(20 * (CAP + SLACK));
    // Dropped streams keep only what they held, until their reader takes it or the grace ends.
    expect(stats.bufferedBytes).toBeLessThanOrEqual(stats.closing * (CAP + SLACK));
    for (const stream of stalled) stream.destroy();
    await eventually(
      () => server.app.eventStreams.stats().closing === 0,
      5000,
      'sockets released once the readers left',
    );
    expect(server.app.eventStreams.stats().bufferedBytes).toBe(0);
  });

  it('sends the slow reader a final overflow event, and Last-Event-ID resumes with exactly what it missed', async () => {
    const t = await server.tenant();
    const stream = await openStalled(server, t);
    // One at a time, so the order submitted is the order stored.
    const submitted = await submitUntilDropped(server, t, { after: 10 });

    // The reader comes back to life and reads what was buffered for it, up to the end.
    stream.resume();
    await stream.ended;
    const events = stream.events();
    const overflow = events.at(-1);
    expect(overflow?.event).toBe('overflow');
    const received = events.filter((e) => e.event === 'report').map((e) => e.id as string);
    expect(received.length).toBeGreaterThan(0);
    expect(received.length).toBeLessThan(submitted.length);
    expect(received).toEqual(submitted.slice(0, received.length));
    const data = JSON.parse(overflow?.data ?? '{}') as { last_event_id: string; detail: string };
    expect(data.last_event_id).toBe(received.at(-1));
    expect(overflow?.id).toBe(received.at(-1));
    expect(data.detail).toContain(`Last-Event-ID: ${received.at(-1)}`);

    // Resuming as the final event says delivers every report after it, in order, once.
    const resumed = await openSse(`${server.url}/v1/dashboard/${t.projectId}/events`, {
      ...bearer(t.apiKey),
      'last-event-id': data.last_event_id,
    });
    try {
      await resumed.waitFor((e) => e.id === submitted.at(-1), 10_000, 'the last missed report');
      expect(resumed.events.filter((e) => e.event === 'report').map((e) => e.id)).toEqual(
        submitted.slice(received.length),
      );
    } finally {
      resumed.close();
    }
    await eventually(() => server.app.eventStreams.stats().open === 0, 5000, 'resumed closed');
  });

  it('a reader that leaves at once, even while its request is authorised, frees its slot', async () => {
    const t = await server.tenant();
    const { port } = new URL(server.url);
    for (let i = 0; i < 50; i++) {
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => {});
      socket.write(
        `GET /v1/dashboard/${t.projectId}/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.apiKey}\r\n\r\n`,
      );
      // Gone at different points: before routing, during the key lookup, after the headers.
      setTimeout(() => socket.destroy(), i % 5);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    await eventually(() => server.app.eventStreams.stats().open === 0, 5000, 'every slot freed');
    // The account can still open its full allowance.
    const streams = await Promise.all(
      Array.from({ length: 20 }, () =>
        openSse(`${server.url}/v1/dashboard/${t.projectId}/events`, bearer(t.apiKey)),
      ),
    );
    try {
      for (const s of streams) expect(s.status).toBe(200);
    } finally {
      for (const s of streams) s.close();
    }
  });

  it('shutdown ends streams still held by stalled readers', async () => {
    // A server of its own: the block's has other tenants' work under way.
    const own = await startTestServer(dialect);
    const t = await own.tenant();
    const stalled = await openStalled(own, t);
    await submitUntilDropped(own, t, { parallel: 5 });
    expect(own.app.eventStreams.stats().closing).toBe(1);
    // The dropped stream still waits for its reader (30 s of grace); shutdown cuts it short.
    // (The paused client cannot notice: it reads nothing, so the server's side is checked.)
    await own.close();
    await eventually(
      () => own.app.eventStreams.stats().closing === 0,
      10_000,
      'the stalled socket destroyed at shutdown',
    );
    expect(own.app.eventStreams.stats()).toEqual({ open: 0, closing: 0, bufferedBytes: 0 });
    stalled.destroy();
  });
});

describe.each(DIALECTS)('event stream limits on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, {
      STREAMS_PER_ACCOUNT: '2',
      STREAMS_PER_INSTANCE: '3',
    });
  });
  afterAll(() => server?.close());

  const events = (t: Tenant) =>
    openSse(`${server.url}/v1/dashboard/${t.projectId}/events`, bearer(t.apiKey));

  it('answers 429 too_many_streams past the per-account and per-instance limits, and frees slots as streams close', async () => {
    const a = await server.tenant();
    const b = await server.tenant();
    const c = await server.tenant();
    const a1 = await events(a);
    const a2 = await events(a);
    const b1 = await events(b);
    try {
      for (const s of [a1, a2, b1]) expect(s.status).toBe(200);

      const third = await call(`${server.url}/v1/dashboard/${a.projectId}/events`, {
        headers: bearer(a.apiKey),
      });
      expect(third.status).toBe(429);
      expect(third.headers.get('content-type')).toContain(PROBLEM_CONTENT_TYPE);
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(third.body).toMatchObject({ ok: false, status: 429, code: 'too_many_streams' });
      expect(third.body.detail).toContain('This account already has 2 event streams open');
      expect(third.body.detail).toContain('Last-Event-ID');

      const fourth = await call(`${server.url}/v1/dashboard/${c.projectId}/events`, {
        headers: bearer(c.apiKey),
      });
      expect(fourth.status).toBe(429);
      expect(fourth.body).toMatchObject({ code: 'too_many_streams' });
      expect(fourth.body.detail).toContain('This server already holds 3 event streams');
      expect(fourth.headers.get('retry-after')).toBeTruthy();

      // A closed stream gives its slot back.
      a1.close();
      await eventually(() => server.app.eventStreams.stats().open === 2, 5000, 'slot freed');
      const again = await events(c);
      expect(again.status).toBe(200);
      await again.waitFor((e) => e.event === 'ready', 10_000, 'ready');
      again.close();
    } finally {
      for (const s of [a1, a2, b1]) s.close();
    }
  });
});
