import { afterEach, describe, expect, it } from 'vitest';
import { closedPort } from '../../client/test/local-servers.js';
import { type Receiver, startReceiver } from '../../client/test/recording-receiver.js';
import { EXPRESS_VERSIONS, type HostApp, post, startHostApp } from './host-app.js';

const KEY = `wk_${'a'.repeat(32)}`;
const NOTED_ISSUE = {
  id: 'e'.repeat(32),
  status: 'resolved',
  agent_note: 'Fixed in 2.3, upgrade.',
};

describe.each(EXPRESS_VERSIONS)('the agent loop through feedbackRouter in %s', (_v, express) => {
  let receiver: Receiver | undefined;
  let host: HostApp | undefined;
  afterEach(async () => {
    await host?.router.close();
    await host?.close();
    await receiver?.close();
    host = undefined;
    receiver = undefined;
  });

  it('passes the issue and its note on to the agent', async () => {
    receiver = await startReceiver((path) =>
      path === '/v1/reports'
        ? { status: 201, body: { ok: true, id: 'f'.repeat(32), issue: NOTED_ISSUE } }
        : undefined,
    );
    host = await startHostApp(express, { ingestKey: KEY, baseUrl: receiver.url, json: false });
    const res = await post(`${host.url}/feedback`, '{"outcome":"failure","details":"x"}');
    expect(res).toMatchObject({
      status: 201,
      body: { ok: true, id: 'f'.repeat(32), issue: NOTED_ISSUE },
    });
  });

  it('sends the forwarding secret with the agent’s address', async () => {
    receiver = await startReceiver();
    host = await startHostApp(express, {
      ingestKey: KEY,
      baseUrl: receiver.url,
      json: true,
      forwardingSecret: 'fs_host_secret',
    });
    await post(`${host.url}/feedback`, '{"outcome":"success","details":"x"}');
    const [sent] = receiver.to('/v1/reports');
    expect(sent?.headers['debrief-forwarding-secret']).toBe('fs_host_secret');
    expect(sent?.headers['debrief-forwarded-for']).toMatch(/127\.0\.0\.1$/);
  });

  it('answers 502 without naming where Debrief lives', async () => {
    const port = await closedPort();
    host = await startHostApp(express, {
      ingestKey: KEY,
      baseUrl: `http://127.0.0.1:${port}`,
      json: false,
      timeoutMs: 1_000,
      countRequests: false,
      onError: () => {},
    });
    const res = await post(`${host.url}/feedback`, '{"outcome":"failure","details":"x"}');
    expect(res.status).toBe(502);
    expect(res.body.detail).toMatch(/unreachable/);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(String(port));
    expect(text).not.toContain('127.0.0.1');
  });

  it('turns 50 equal 5xx answers of a host route into one failure report', async () => {
    receiver = await startReceiver();
    host = await startHostApp(express, {
      ingestKey: KEY,
      baseUrl: receiver.url,
      json: true,
      capture: true,
    });
    const url = host.url;
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => fetch(`${url}/boom`).then((r) => r.json())),
    );
    // The host's answer reaches its caller untouched.
    for (const answer of answers) expect(answer).toEqual({ error: 'database connection lost' });
    await fetch(`${url}/crash`).then((r) => r.text());
    await fetch(`${url}/users/7`).then((r) => r.text());
    await host.router.flush();
    const reports = receiver.to('/v1/reports').map((r) => r.body);
    expect(reports.map((r) => [r.outcome, r.tool_name])).toEqual([
      ['failure', 'GET /boom'],
      ['failure', 'GET /crash'],
    ]);
    expect(reports[0]).toMatchObject({
      details: 'GET /boom answered 500: {"error":"database connection lost"}',
      source: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
      metadata: { captured: true },
    });
  });

  it('counts 1,000 requests with 10 errors per route and sends them at close', async () => {
    receiver = await startReceiver();
    host = await startHostApp(express, {
      ingestKey: KEY,
      baseUrl: receiver.url,
      json: true,
      serverVersion: '4.5.6',
    });
    const url = host.url;
    for (let i = 0; i < 1000; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          fetch((i + j) % 100 === 0 ? `${url}/boom` : `${url}/users/${i + j}`).then((r) =>
            r.text(),
          ),
        ),
      );
    }
    await host.router.close();
    const windows = receiver.to('/v1/usage').map((r) => r.body);
    const total: Record<string, { calls: number; errors: number }> = {};
    for (const w of windows) {
      expect(w).toMatchObject({ ingest_key: KEY, server_version: '4.5.6' });
      for (const [name, usage] of Object.entries(w.tools) as Array<[string, any]>) {
        total[name] ??= { calls: 0, errors: 0 };
        total[name].calls += usage.calls;
        total[name].errors += usage.errors;
      }
    }
    expect(total).toEqual({
      'GET /users/:id': { calls: 990, errors: 0 },
      'GET /boom': { calls: 10, errors: 10 },
    });
  });
});
