import { ReportList } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';

/**
 * The list's stats come from running counters when there is no date range, and from counting
 * the reports when there is one: both ways must agree, for every label filter.
 */
describe.each(DIALECTS)('stats from counters on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  it('match a full count for every tool_name/source filter, absent labels included', async () => {
    const t = await server.tenant();
    const outcomes = ['success', 'failure', 'confusing', 'gave_up', 'request'];
    const tools = ['search', 'edit', null];
    const sources = ['cli', null];
    for (let i = 0; i < 30; i++) {
      const res = await call(`${server.url}/v1/reports`, {
        body: {
          ingest_key: t.ingestKey,
          outcome: outcomes[i % 5],
          details: `report ${i}`,
          tool_name: tools[i % 3],
          source: sources[i % 2],
        },
      });
      expect(res.status).toBe(201);
    }
    const list = async (query: string) => {
      const res = await call(`${server.url}/v1/dashboard/${t.projectId}/reports?${query}`, {
        headers: bearer(t.apiKey),
      });
      expect(res.status).toBe(200);
      return ReportList.parse(res.body);
    };
    for (const filter of [
      '',
      'tool_name=search',
      'source=cli',
      'tool_name=edit&source=cli',
      'outcome=failure&tool_name=search',
      'tool_name=nope',
    ]) {
      const fromCounters = await list(filter);
      const counted = await list(`${filter}&from=2000-01-01`);
      expect(fromCounters.stats, filter).toEqual(counted.stats);
      expect(fromCounters.pagination.total, filter).toBe(counted.pagination.total);
    }
    expect((await list('')).stats.total).toBe(30);
    expect((await list('tool_name=search')).stats.total).toBe(10);
    expect((await list('tool_name=')).stats.total).toBe(0);
  });
});
