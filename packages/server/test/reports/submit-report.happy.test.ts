import { Report, ReportList, SubmitReportResponse } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';

describe.each(DIALECTS)('POST /v1/reports on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  it('stores a report and answers 201 with a 32-hex UUIDv7 id', async () => {
    const t = await server.tenant();
    const res = await call(`${server.url}/v1/reports`, {
      body: {
        ingest_key: t.ingestKey,
        outcome: 'success',
        details: 'Found the file on the first try.',
      },
    });
    expect(res.status).toBe(201);
    expect(SubmitReportResponse.parse(res.body).id).toMatch(
      /^[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/,
    );
  });

  it('returns every field as sent, with null for absent optional fields', async () => {
    const t = await server.tenant();
    const sent = {
      ingest_key: t.ingestKey,
      outcome: 'gave_up',
      details: '  Could not authenticate.  ',
      tool_name: 'login',
      source: 'claude-code',
      metadata: { model: 'x-1', attempt: 3, cached: false },
    };
    const { body } = await call(`${server.url}/v1/reports`, { body: sent });
    await call(`${server.url}/v1/reports`, {
      body: { ingest_key: t.ingestKey, outcome: 'request', details: 'More filters please' },
    });
    const list = ReportList.parse(
      (
        await call(`${server.url}/v1/dashboard/${t.projectId}/reports`, {
          headers: bearer(t.apiKey),
        })
      ).body,
    );
    const [newest, older] = list.reports;
    expect(newest).toMatchObject({
      outcome: 'request',
      tool_name: null,
      source: null,
      metadata: null,
    });
    expect(Report.parse(older)).toMatchObject({
      id: body.id,
      outcome: 'gave_up',
      details: 'Could not authenticate.',
      tool_name: 'login',
      source: 'claude-code',
      metadata: sent.metadata,
    });
    expect(older!.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });

  it('accepts a JSON body sent without a Content-Type or with a wrong one', async () => {
    const t = await server.tenant();
    const raw = JSON.stringify({
      ingest_key: t.ingestKey,
      outcome: 'failure',
      details: 'curl without -H',
    });
    const none = await fetch(`${server.url}/v1/reports`, { method: 'POST', body: new Blob([raw]) });
    expect(none.status).toBe(201);
    const text = await call(`${server.url}/v1/reports`, {
      raw,
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(201);
    const form = await call(`${server.url}/v1/reports`, {
      raw,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(201);
  });

  it('accepts a body that starts with a UTF-8 byte-order mark', async () => {
    const t = await server.tenant();
    const raw = `\uFEFF${JSON.stringify({ ingest_key: t.ingestKey, outcome: 'success', details: 'from PowerShell' })}`;
    expect((await call(`${server.url}/v1/reports`, { raw })).status).toBe(201);
  });

  it('ignores unknown top-level fields', async () => {
    const t = await server.tenant();
    const res = await call(`${server.url}/v1/reports`, {
      body: { ingest_key: t.ingestKey, outcome: 'success', details: 'ok', mood: 'great' },
    });
    expect(res.status).toBe(201);
  });

  it('answers CORS preflight and sets Access-Control-Allow-Origin for any origin', async () => {
    const pre = await fetch(`${server.url}/v1/reports`, {
      method: 'OPTIONS',
      headers: { origin: 'https://agent.example', 'access-control-request-method': 'POST' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    const t = await server.tenant();
    const res = await call(`${server.url}/v1/reports`, {
      body: { ingest_key: t.ingestKey, outcome: 'success', details: 'ok' },
      headers: { origin: 'https://agent.example' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('accepts details of exactly 10,000 characters and labels of 200', async () => {
    const t = await server.tenant();
    const res = await call(`${server.url}/v1/reports`, {
      body: {
        ingest_key: t.ingestKey,
        outcome: 'confusing',
        details: 'x'.repeat(10_000),
        tool_name: 't'.repeat(200),
        source: 's'.repeat(200),
      },
    });
    expect(res.status).toBe(201);
  });
});
