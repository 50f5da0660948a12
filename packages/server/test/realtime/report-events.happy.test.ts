import { Report } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';
import { openSse, type SseEvent } from '../support/sse-reader.js';

const reports = (events: SseEvent[]) => events.filter((e) => e.event === 'report');

describe.each(DIALECTS)('GET /v1/dashboard/{projectId}/events on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  it('streams each new report of the project, and only those', async () => {
    const t = await server.tenant();
    const other = await server.tenant();
    const stream = await openSse(
      `${server.url}/v1/dashboard/${t.projectId}/events`,
      bearer(t.apiKey),
    );
    try {
      expect(stream.status).toBe(200);
      await stream.waitFor((e) => e.event === 'ready', 10_000, 'ready event');
      await call(`${server.url}/v1/reports`, {
        body: { ingest_key: other.ingestKey, outcome: 'success', details: 'not yours' },
      });
      const sent = await call(`${server.url}/v1/reports`, {
        body: {
          ingest_key: t.ingestKey,
          outcome: 'confusing',
          details: 'which flag?',
          tool_name: 'grep',
          metadata: { client: 'test' },
        },
      });
      const event = await stream.waitFor((e) => e.event === 'report', 10_000, 'report event');
      expect(event.id).toBe(sent.body.id);
      const report = Report.parse(JSON.parse(event.data));
      expect(report).toMatchObject({
        id: sent.body.id,
        outcome: 'confusing',
        details: 'which flag?',
        tool_name: 'grep',
        metadata: { client: 'test' },
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(reports(stream.events)).toHaveLength(1);
    } finally {
      stream.close();
    }
  });

  it('fans every report out to every stream of the project, once each and in one order', async () => {
    const t = await server.tenant();
    const url = `${server.url}/v1/dashboard/${t.projectId}/events`;
    const streams = await Promise.all(
      Array.from({ length: 10 }, () => openSse(url, bearer(t.apiKey))),
    );
    try {
      for (const s of streams) await s.waitFor((e) => e.event === 'ready', 10_000, 'ready');
      // Submitted concurrently, so that several reports share one fan-out batch.
      const sent = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          call(`${server.url}/v1/reports`, {
            body: { ingest_key: t.ingestKey, outcome: 'success', details: `report ${i}` },
          }),
        ),
      );
      const ids = sent.map((answer) => answer.body.id as string).sort();
      for (const s of streams)
        await s.waitFor(() => reports(s.events).length >= ids.length, 10_000, 'all 20 reports');
      await new Promise((resolve) => setTimeout(resolve, 300));
      const first = reports(streams[0]!.events).map((e) => e.id);
      expect([...first].sort()).toEqual(ids);
      // One sequence, written to every stream (PostgreSQL may deliver concurrent commits out
      // of id order, so the order is compared between streams, not with the ids).
      for (const s of streams) expect(reports(s.events).map((e) => e.id)).toEqual(first);
    } finally {
      for (const s of streams) s.close();
    }
  });

  it('replays reports after Last-Event-ID, oldest first, then continues live', async () => {
    const t = await server.tenant();
    const ids: string[] = [];
    for (const details of ['one', 'two', 'three']) {
      ids.push(
        (
          await call(`${server.url}/v1/reports`, {
            body: { ingest_key: t.ingestKey, outcome: 'success', details },
          })
        ).body.id,
      );
    }
    const stream = await openSse(`${server.url}/v1/dashboard/${t.projectId}/events`, {
      ...bearer(t.apiKey),
      'last-event-id': ids[0]!,
    });
    try {
      await stream.waitFor((e) => e.id === ids[2], 10_000, 'replayed report');
      const live = await call(`${server.url}/v1/reports`, {
        body: { ingest_key: t.ingestKey, outcome: 'failure', details: 'four' },
      });
      await stream.waitFor((e) => e.id === live.body.id, 10_000, 'live report');
      expect(reports(stream.events).map((e) => e.id)).toEqual([ids[1], ids[2], live.body.id]);
    } finally {
      stream.close();
    }
  });

  it('sends a report once to a stream that replayed it while its live copy was on its way', async () => {
    const t = await server.tenant();
    const url = `${server.url}/v1/dashboard/${t.projectId}/events`;
    // Another tab keeps the project subscribed, so the live copy waits in the hub's window.
    const tab = await openSse(url, bearer(t.apiKey));
    const resumed: Awaited<ReturnType<typeof openSse>>[] = [];
    try {
      await tab.waitFor((e) => e.event === 'ready', 10_000, 'ready event');
      const first = await call(`${server.url}/v1/reports`, {
        body: { ingest_key: t.ingestKey, outcome: 'success', details: 'one' },
      });
      const second = await call(`${server.url}/v1/reports`, {
        body: { ingest_key: t.ingestKey, outcome: 'success', details: 'two' },
      });
      // Resumed at once: the backlog read finds `two` before its live copy is flushed.
      resumed.push(await openSse(url, { ...bearer(t.apiKey), 'last-event-id': first.body.id }));
      const stream = resumed[0]!;
      await stream.waitFor((e) => e.id === second.body.id, 10_000, 'replayed report');
      await tab.waitFor((e) => e.id === second.body.id, 10_000, 'live report');
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(reports(stream.events).map((e) => e.id)).toEqual([second.body.id]);
    } finally {
      tab.close();
      for (const stream of resumed) stream.close();
    }
  });
});
