import { createReporter, DebriefError } from '@debrief/client';
import { ProblemDetails } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import { closedPort, startScriptedProxy } from './local-servers.js';

describe('createReporter failures', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(() => server.close());

  it('refuses an invalid outcome locally, without a request, with the server messages', async () => {
    const t = await server.tenant();
    const proxy = await startScriptedProxy(server.url, []);
    try {
      const reporter = createReporter({ ingestKey: t.ingestKey, baseUrl: proxy.url });
      const local = await reporter.report({ outcome: 'great' as never, details: 'x' });
      expect(proxy.requests).toBe(0);
      expect(local).toMatchObject({ ok: false, attempts: 0 });
      // The same body straight to the server gives the same problem.
      const remote = await fetch(`${server.url}/v1/reports`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ingest_key: t.ingestKey, outcome: 'great', details: 'x' }),
      }).then((r) => r.json() as Promise<Record<string, unknown>>);
      if (local.ok) throw new Error('expected a failure');
      // `type` differs only by base URL (the problem's docs link), the rest is identical.
      const { type: _localType, ...localRest } = ProblemDetails.parse(local.error);
      const { type: _remoteType, ...remoteRest } = remote;
      expect(localRest).toEqual(remoteRest);
      expect(local.error.detail).toContain('success, failure, confusing, gave_up, request');
    } finally {
      await proxy.close();
    }
  });

  it('reports the 429 over quota at once, with retry_after_seconds, and stores nothing', async () => {
    const t = await server.tenant({ monthlyQuota: 0 });
    const reporter = createReporter({ ingestKey: t.ingestKey, baseUrl: server.url, retries: 3 });
    const result = await reporter.report({ outcome: 'success', details: 'over quota' });
    if (result.ok) throw new Error('expected a failure');
    expect(result.error).toMatchObject({ status: 429, code: 'quota_exceeded' });
    expect(result.attempts).toBe(1);
    expect(result.retry_after_seconds).toBeGreaterThan(0);
  });

  it('never retries other 4xx', async () => {
    const proxy = await startScriptedProxy(server.url, []);
    try {
      const reporter = createReporter({ ingestKey: `wk_${'0'.repeat(32)}`, baseUrl: proxy.url });
      const result = await reporter.report({ outcome: 'success', details: 'unknown key' });
      expect(result).toMatchObject({
        ok: false,
        attempts: 1,
        error: { status: 401, code: 'invalid_ingest_key' },
      });
      expect(proxy.requests).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it('resolves network_error when Debrief is down, after its bounded retries', async () => {
    const reporter = createReporter({
      ingestKey: `wk_${'0'.repeat(32)}`,
      baseUrl: `http://127.0.0.1:${await closedPort()}`,
      retries: 2,
      timeoutMs: 5_000,
    });
    const result = await reporter.report({ outcome: 'success', details: 'nobody home' });
    expect(result).toMatchObject({
      ok: false,
      attempts: 3,
      error: { code: 'network_error', status: 0 },
    });
  });

  it('resolves timeout when Debrief hangs, within timeoutMs', async () => {
    const t = await server.tenant();
    const proxy = await startScriptedProxy(server.url, ['hang', 'hang', 'hang']);
    try {
      const reporter = createReporter({
        ingestKey: t.ingestKey,
        baseUrl: proxy.url,
        timeoutMs: 300,
      });
      const result = await reporter.report({ outcome: 'success', details: 'stalled' });
      expect(result).toMatchObject({ ok: false, attempts: 1, error: { code: 'timeout' } });
    } finally {
      await proxy.close();
    }
  });

  it('gives up after its retries on persistent 5xx and returns the last answer', async () => {
    const t = await server.tenant();
    const failing = { status: 502, body: { oops: true } };
    const proxy = await startScriptedProxy(server.url, [failing, failing, failing]);
    try {
      const reporter = createReporter({ ingestKey: t.ingestKey, baseUrl: proxy.url, retries: 1 });
      const result = await reporter.report({ outcome: 'success', details: 'bad gateway' });
      expect(result).toMatchObject({
        ok: false,
        attempts: 2,
        error: { code: 'invalid_response', status: 502 },
      });
      expect(proxy.requests).toBe(2);
    } finally {
      await proxy.close();
    }
  });

  it('rejects with a DebriefError only when throwOnError is set', async () => {
    const reporter = createReporter({
      ingestKey: `wk_${'0'.repeat(32)}`,
      baseUrl: server.url,
      throwOnError: true,
    });
    const error = await reporter.report({ outcome: 'success', details: 'x' }).catch((e) => e);
    expect(error).toBeInstanceOf(DebriefError);
    expect(error).toMatchObject({ code: 'invalid_ingest_key', status: 401 });
  });

  it('refuses a missing or secret key locally, never sending a secret key anywhere', async () => {
    const proxy = await startScriptedProxy(server.url, []);
    const saved = process.env.DEBRIEF_INGEST_KEY;
    delete process.env.DEBRIEF_INGEST_KEY;
    try {
      const missing = await createReporter({ baseUrl: proxy.url }).report({
        outcome: 'success',
        details: 'x',
      });
      expect(missing).toMatchObject({
        ok: false,
        attempts: 0,
        error: { status: 401, code: 'missing_ingest_key' },
      });
      const secret = await createReporter({
        ingestKey: `wk_sk_${'a'.repeat(38)}`,
        baseUrl: proxy.url,
      }).report({
        outcome: 'success',
        details: 'x',
      });
      expect(secret).toMatchObject({
        ok: false,
        attempts: 0,
        error: { status: 401, code: 'secret_key_not_allowed' },
      });
      expect(proxy.requests).toBe(0);
    } finally {
      if (saved !== undefined) process.env.DEBRIEF_INGEST_KEY = saved;
      await proxy.close();
    }
  });
});
