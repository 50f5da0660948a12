import { Report } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import { bearer, call } from './http.js';
import { openSse, type SseEvent } from './sse-reader.js';

const reports = (events: SseEvent[]) => events.filter((e) => e.event === 'report');

describe.each(DIALECTS)('GET /v1/dashboard/{projectId}/events on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  it('streams each new report of the project within a second, and only those', async () => {
    const t = await server.tenant();
    const other = await server.tenant();
    const stream = await openSse(
      `${server.url}/v1/dashboard/${t.projectId}/events`,
      bearer(t.apiKey),
    );
    try {
      expect(stream.status).toBe(200);
      await stream.waitFor((e) => e.event === 'ready', 2000, 'ready event');
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
      const event = await stream.waitFor((e) => e.event === 'report', 1000, 'report event');
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
      await stream.waitFor((e) => e.id === ids[2], 2000, 'replayed report');
      const live = await call(`${server.url}/v1/reports`, {
        body: { ingest_key: t.ingestKey, outcome: 'failure', details: 'four' },
      });
      await stream.waitFor((e) => e.id === live.body.id, 2000, 'live report');
      expect(reports(stream.events).map((e) => e.id)).toEqual([ids[1], ids[2], live.body.id]);
    } finally {
      stream.close();
    }
  });
});
