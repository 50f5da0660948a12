import { createReader } from '@debrief/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import { closedPort } from '../../client/test/local-servers.js';
import { EXPRESS_VERSIONS, post, startHostApp } from './host-app.js';

describe.each(EXPRESS_VERSIONS)('feedbackRouter failures in %s', (_version, express) => {
  let debrief: TestServer;
  beforeAll(async () => {
    debrief = await startTestServer('sqlite');
  });
  afterAll(() => debrief.close());

  it.each([false, true])(
    'answers 400 naming the allowed outcomes (express.json() %s)',
    async (json) => {
      const t = await debrief.tenant();
      const host = await startHostApp(express, {
        ingestKey: t.ingestKey,
        baseUrl: debrief.url,
        json,
      });
      try {
        const res = await post(`${host.url}/feedback`, '{"outcome":"great","details":"x"}');
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
        expect(res.body).toMatchObject({ ok: false, status: 400, code: 'validation_failed' });
        expect(res.body.detail).toContain('success, failure, confusing, gave_up, request');
        expect(res.body.errors).toEqual([
          { field: 'outcome', message: expect.stringContaining('"great"') },
        ]);
        const reports = await createReader({ apiKey: t.apiKey, baseUrl: debrief.url }).getReports(
          t.projectId,
        );
        expect(reports.pagination.total).toBe(0);
      } finally {
        await host.close();
      }
    },
  );

  it('answers 400 for invalid JSON, an empty body and a non-object, and 413 for a huge body', async () => {
    const t = await debrief.tenant();
    const host = await startHostApp(express, {
      ingestKey: t.ingestKey,
      baseUrl: debrief.url,
      json: false,
    });
    try {
      expect((await post(`${host.url}/feedback`, '{outcome:')).body).toMatchObject({
        status: 400,
        code: 'invalid_json',
      });
      expect((await post(`${host.url}/feedback`, '')).body).toMatchObject({
        status: 400,
        code: 'invalid_body',
      });
      expect((await post(`${host.url}/feedback`, '[1]')).body).toMatchObject({
        status: 400,
        code: 'invalid_body',
      });
      const huge = JSON.stringify({ outcome: 'success', details: 'x'.repeat(70_000) });
      const res = await post(`${host.url}/feedback`, huge);
      expect(res).toMatchObject({ status: 413, body: { code: 'payload_too_large' } });
    } finally {
      await host.close();
    }
  });

  it('drops added metadata that would break the limits instead of failing the report', async () => {
    const t = await debrief.tenant();
    const host = await startHostApp(express, {
      ingestKey: t.ingestKey,
      baseUrl: debrief.url,
      json: true,
    });
    try {
      const metadata = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]));
      const res = await post(
        `${host.url}/feedback`,
        JSON.stringify({ outcome: 'success', details: 'full', metadata }),
      );
      expect(res.status).toBe(201);
      const [report] = (
        await createReader({ apiKey: t.apiKey, baseUrl: debrief.url }).getReports(t.projectId)
      ).reports;
      expect(report?.metadata).toEqual(metadata);
    } finally {
      await host.close();
    }
  });

  it('answers 502 when Debrief is down, and the host keeps working', async () => {
    const downUrl = `http://127.0.0.1:${await closedPort()}`;
    const host = await startHostApp(express, {
      ingestKey: `wk_${'0'.repeat(32)}`,
      baseUrl: downUrl,
      json: true,
      timeoutMs: 2_000,
    });
    try {
      const res = await post(`${host.url}/feedback`, '{"outcome":"failure","details":"down"}');
      expect(res.status).toBe(502);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body).toMatchObject({ ok: false, status: 502, code: 'network_error' });
      expect(res.body.detail).toMatch(/not stored/);
      expect(await fetch(`${host.url}/health`).then((r) => r.json())).toEqual({ host: 'fine' });
    } finally {
      await host.close();
    }
  });

  it('passes the 429 over quota through, with Retry-After', async () => {
    const t = await debrief.tenant({ monthlyQuota: 0 });
    const host = await startHostApp(express, {
      ingestKey: t.ingestKey,
      baseUrl: debrief.url,
      json: false,
    });
    try {
      const res = await post(`${host.url}/feedback`, '{"outcome":"success","details":"quota"}');
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({ ok: false, status: 429, code: 'quota_exceeded' });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await host.close();
    }
  });

  it('answers 502, not 401, when the app is configured with an unknown key', async () => {
    const host = await startHostApp(express, {
      ingestKey: `wk_${'0'.repeat(32)}`,
      baseUrl: debrief.url,
      json: false,
    });
    try {
      const res = await post(`${host.url}/feedback`, '{"outcome":"success","details":"x"}');
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ ok: false, status: 502, code: 'invalid_ingest_key' });
      expect(res.body.detail).toMatch(/misconfigured.*not your fault/);
    } finally {
      await host.close();
    }
  });
});
