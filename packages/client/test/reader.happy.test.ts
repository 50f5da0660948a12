import { createReader, createReporter, type Reader } from '@debrief/client';
import type { Report } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../test/harness/test-server.js';

describe('createReader against a real Debrief', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(() => server.close());

  async function seeded(count: number): Promise<{ t: Tenant; reader: Reader; ids: string[] }> {
    const t = await server.tenant();
    const reporter = createReporter({ ingestKey: t.ingestKey, baseUrl: server.url });
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const result = await reporter.report({
        outcome: i % 2 === 0 ? 'success' : 'failure',
        details: `report ${i}`,
        tool_name: i % 2 === 0 ? 'search' : 'fetch',
      });
      if (!result.ok) throw new Error(result.error.detail);
      ids.push(result.id);
    }
    return { t, reader: createReader({ apiKey: t.apiKey, baseUrl: server.url }), ids };
  }

  it('lists the projects of the key', async () => {
    const { t, reader } = await seeded(0);
    expect(await reader.listProjects()).toEqual([
      { id: t.projectId, name: t.projectName, created_at: expect.any(String) },
    ]);
  });

  it('gets one page with filters, stats and pagination', async () => {
    const { t, reader } = await seeded(5);
    const list = await reader.getReports(t.projectId, {
      outcome: 'failure',
      limit: 1,
      to: new Date(Date.now() + 60_000),
    });
    expect(list.project).toEqual({ id: t.projectId, name: t.projectName });
    expect(list.stats).toMatchObject({ total: 5, success: 3, failure: 2 });
    expect(list.pagination).toEqual({
      page: 1,
      limit: 1,
      total: 2,
      next_cursor: expect.any(String),
    });
    expect(list.reports[0]).toMatchObject({
      outcome: 'failure',
      tool_name: 'fetch',
      details: 'report 3',
    });
  });

  it('gets 50 reports a page when no limit is given', async () => {
    const { t, reader } = await seeded(1);
    expect((await reader.getReports(t.projectId)).pagination).toEqual({
      page: 1,
      limit: 50,
      total: 1,
      next_cursor: null,
    });
  });

  it('iterates every page, newest first, without repeats', async () => {
    const { t, reader, ids } = await seeded(5);
    const seen: string[] = [];
    for await (const report of reader.iterateReports(t.projectId, { limit: 2 }))
      seen.push(report.id);
    expect(seen).toEqual([...ids].reverse());
    const filtered: Report[] = [];
    for await (const report of reader.iterateReports(t.projectId, {
      tool_name: 'search',
      limit: 1,
    })) {
      filtered.push(report);
    }
    expect(filtered.map((r) => r.details)).toEqual(['report 4', 'report 2', 'report 0']);
  });

  it('walks pages by next_cursor, unmoved by reports arriving meanwhile', async () => {
    const { t, reader, ids } = await seeded(5);
    const reporter = createReporter({ ingestKey: t.ingestKey, baseUrl: server.url });
    const pages = [];
    for await (const list of reader.walkReports(t.projectId, { limit: 2 })) {
      pages.push(list);
      // A newer report after the first page: a walk by page number would show one twice.
      if (pages.length === 1) await reporter.report({ outcome: 'success', details: 'late' });
    }
    expect(pages.map((p) => p.reports.length)).toEqual([2, 2, 1]);
    expect(pages.flatMap((p) => p.reports.map((r) => r.id))).toEqual([...ids].reverse());
    expect(pages.map((p) => p.pagination.page)).toEqual([1, 2, 3]);
    expect(pages.at(-1)!.pagination.next_cursor).toBeNull();
    // A walk can start from a cursor it was given.
    const resumed = [];
    for await (const report of reader.iterateReports(t.projectId, {
      limit: 2,
      cursor: pages[1]!.pagination.next_cursor!,
    }))
      resumed.push(report.id);
    expect(resumed).toEqual([ids[0]]);
  });

  it('follows the live stream, skipping ready and heartbeats, until the loop is left', async () => {
    const { t, reader, ids } = await seeded(1);
    const reporter = createReporter({ ingestKey: t.ingestKey, baseUrl: server.url });
    // Resuming from the seeded report makes the first event deterministic: the server replays
    // it if it was stored before the subscription, or sends it live if after.
    const stream = reader.events(t.projectId, { lastEventId: ids[0] });
    const first = stream.next();
    const sent = await reporter.report({ outcome: 'request', details: 'live one' });
    expect((await first).value).toMatchObject({ id: sent.ok ? sent.id : '', details: 'live one' });
    // Now the stream is certainly subscribed: this one can only arrive live.
    await reporter.report({ outcome: 'success', details: 'live two' });
    expect((await stream.next()).value).toMatchObject({ details: 'live two' });
    await stream.return(undefined);
    expect(await stream.next()).toEqual({ done: true, value: undefined });
  });

  it('resumes after lastEventId, replaying what was missed', async () => {
    const { t, reader, ids } = await seeded(3);
    const controller = new AbortController();
    const replayed: string[] = [];
    for await (const report of reader.events(t.projectId, {
      lastEventId: ids[0],
      signal: controller.signal,
    })) {
      replayed.push(report.id);
      if (replayed.length === 2) controller.abort();
    }
    expect(replayed).toEqual([ids[1], ids[2]]);
  });
});
