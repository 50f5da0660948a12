import { createReader, createReporter, resolveBaseUrl } from '@debrief/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import { startScriptedProxy } from './local-servers.js';

describe('createReporter against a real Debrief', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(() => server.close());

  it('submits a report and resolves { ok: true, id } that the read API returns', async () => {
    const t = await server.tenant();
    const reporter = createReporter({ ingestKey: t.ingestKey, baseUrl: server.url });
    const result = await reporter.report({
      outcome: 'confusing',
      details: '  The date parameter format was not documented.  ',
      tool_name: 'search',
      metadata: { model: 'x-1', attempt: 2, cached: false },
    });
    expect(result).toEqual({ ok: true, id: expect.stringMatching(/^[0-9a-f]{32}$/), attempts: 1 });
    const list = await createReader({ apiKey: t.apiKey, baseUrl: server.url }).getReports(
      t.projectId,
    );
    expect(list.reports[0]).toMatchObject({
      id: result.ok ? result.id : '',
      outcome: 'confusing',
      details: 'The date parameter format was not documented.',
      tool_name: 'search',
      source: null,
      metadata: { model: 'x-1', attempt: 2, cached: false },
    });
  });

  it('uses the reporter source by default and the report source when given', async () => {
    const t = await server.tenant();
    const reporter = createReporter({
      ingestKey: t.ingestKey,
      baseUrl: server.url,
      source: 'my-mcp',
    });
    await reporter.report({ outcome: 'success', details: 'default source' });
    await reporter.report({ outcome: 'success', details: 'own source', source: 'cli' });
    const list = await createReader({ apiKey: t.apiKey, baseUrl: server.url }).getReports(
      t.projectId,
    );
    expect(list.reports.map((r) => [r.details, r.source])).toEqual([
      ['own source', 'cli'],
      ['default source', 'my-mcp'],
    ]);
  });

  it('retries a 503 and a dropped connection, then delivers exactly one report', async () => {
    const t = await server.tenant();
    const proxy = await startScriptedProxy(server.url, [{ status: 503 }, 'reset']);
    try {
      const reporter = createReporter({ ingestKey: t.ingestKey, baseUrl: proxy.url, retries: 2 });
      const result = await reporter.report({ outcome: 'failure', details: 'third time lucky' });
      expect(result).toMatchObject({ ok: true, attempts: 3 });
      expect(proxy.requests).toBe(3);
      const list = await createReader({ apiKey: t.apiKey, baseUrl: server.url }).getReports(
        t.projectId,
      );
      expect(list.pagination.total).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it('waits out a short Retry-After on 429 when it fits the bound', async () => {
    const t = await server.tenant();
    const proxy = await startScriptedProxy(server.url, [
      { status: 429, headers: { 'retry-after': '1' }, body: { ok: false, code: 'rate_limited' } },
    ]);
    try {
      const reporter = createReporter({
        ingestKey: t.ingestKey,
        baseUrl: proxy.url,
        timeoutMs: 5_000,
      });
      const result = await reporter.report({ outcome: 'success', details: 'after a pause' });
      expect(result).toMatchObject({ ok: true, attempts: 2 });
    } finally {
      await proxy.close();
    }
  });

  it('takes baseUrl from DEBRIEF_URL, then falls back to localhost:8080', () => {
    const saved = process.env.DEBRIEF_URL;
    try {
      process.env.DEBRIEF_URL = 'https://debrief.example.test/';
      expect(resolveBaseUrl()).toBe('https://debrief.example.test');
      expect(resolveBaseUrl('http://other.test')).toBe('http://other.test');
      delete process.env.DEBRIEF_URL;
      expect(resolveBaseUrl()).toBe('http://localhost:8080');
    } finally {
      if (saved === undefined) delete process.env.DEBRIEF_URL;
      else process.env.DEBRIEF_URL = saved;
    }
  });

  it('takes the ingest key from DEBRIEF_INGEST_KEY when none is given', async () => {
    const t = await server.tenant();
    const saved = process.env.DEBRIEF_INGEST_KEY;
    process.env.DEBRIEF_INGEST_KEY = t.ingestKey;
    try {
      const result = await createReporter({ baseUrl: server.url }).report({
        outcome: 'success',
        details: 'env key',
      });
      expect(result).toMatchObject({ ok: true });
    } finally {
      if (saved === undefined) delete process.env.DEBRIEF_INGEST_KEY;
      else process.env.DEBRIEF_INGEST_KEY = saved;
    }
  });
});
