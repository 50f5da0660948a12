import { Report } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import { bearer, call } from './http.js';
import { openSse } from './sse.js';

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
      await stream.next('ready');
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
      const event = await stream.next('report', 1000);
      expect(event.id).toBe(sent.body.id);
      const report = Report.parse(JSON.parse(event.data));
      expect(report).toMatchObject({
        id: sent.body.id,
        outcome: 'confusing',
        details: 'which flag?',
        tool_name: 'grep',
        metadata: { client: 'test' },
      });
      await expect(stream.next('report', 300)).rejects.toThrow(/no "report" event/);
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
      expect((await stream.next()).id).toBe(ids[1]);
      expect((await stream.next()).id).toBe(ids[2]);
      const live = await call(`${server.url}/v1/reports`, {
        body: { ingest_key: t.ingestKey, outcome: 'failure', details: 'four' },
      });
      expect((await stream.next()).id).toBe(live.body.id);
    } finally {
      stream.close();
    }
  });
});
