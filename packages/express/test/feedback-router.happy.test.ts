import { createReader } from '@debrief/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import { EXPRESS_VERSIONS, post, startHostApp } from './host-app.js';

describe.each(EXPRESS_VERSIONS)('feedbackRouter in %s', (_version, express) => {
  let debrief: TestServer;
  beforeAll(async () => {
    debrief = await startTestServer('sqlite');
  });
  afterAll(() => debrief.close());

  // Without issue_id and issue_reason: grouping runs after the 201, so a report may or may not
  // have its issue yet (the server's issues tests cover them).
  const reportsOf = async (t: { apiKey: string; projectId: string }) =>
    (
      await createReader({ apiKey: t.apiKey, baseUrl: debrief.url }).getReports(t.projectId)
    ).reports.map(({ issue_id: _issue, issue_reason: _reason, ...report }) => report);

  it.each([false, true])('forwards a report with express.json() %s', async (json) => {
    const t = await debrief.tenant();
    const host = await startHostApp(express, {
      ingestKey: t.ingestKey,
      baseUrl: debrief.url,
      json,
    });
    try {
      const res = await post(
        `${host.url}/feedback`,
        JSON.stringify({
          outcome: 'confusing',
          details: 'The search endpoint ignores page=2.',
          tool_name: 'GET /v1/search',
          metadata: { model: 'x-1' },
          ingest_key: 'ignored',
        }),
        { 'content-type': 'application/json', 'user-agent': 'test-agent/1.0' },
      );
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ ok: true, id: expect.stringMatching(/^[0-9a-f]{32}$/) });
      expect(await reportsOf(t)).toEqual([
        {
          id: res.body.id,
          outcome: 'confusing',
          details: 'The search endpoint ignores page=2.',
          tool_name: 'GET /v1/search',
          source: new URL(host.url).host,
          metadata: { model: 'x-1', user_agent: 'test-agent/1.0' },
          created_at: expect.any(String),
          redactions: 0,
        },
      ]);
    } finally {
      await host.close();
    }
  });

  it('accepts a body sent without Content-Type, even behind express.json()', async () => {
    const t = await debrief.tenant();
    const host = await startHostApp(express, {
      ingestKey: t.ingestKey,
      baseUrl: debrief.url,
      json: true,
    });
    try {
      const res = await post(`${host.url}/feedback`, '{"outcome":"success","details":"curl"}', {});
      expect(res.status).toBe(201);
    } finally {
      await host.close();
    }
  });

  it('honours the source, path and mount options and leaves other routes to the host', async () => {
    const t = await debrief.tenant();
    const host = await startHostApp(express, {
      ingestKey: t.ingestKey,
      baseUrl: debrief.url,
      json: false,
      source: 'shop-api',
      path: '/agent-feedback',
      mount: '/api',
    });
    try {
      const res = await post(
        `${host.url}/api/agent-feedback`,
        '{"outcome":"request","details":"bulk"}',
      );
      expect(res.status).toBe(201);
      expect((await reportsOf(t))[0]).toMatchObject({ source: 'shop-api', tool_name: null });
      const own = await fetch(`${host.url}/feedback`).then((r) => r.json());
      expect(own).toEqual({ host: 'own GET /feedback' });
    } finally {
      await host.close();
    }
  });
});
