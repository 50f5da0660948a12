import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import { closedPort } from '../../client/test/local-servers.js';
import {
  AGENT_LOOP_ENV,
  notedIssue,
  reportsOf,
  toolRatesOf,
} from '../../client/test/support/real-debrief.js';
import { EXPRESS_VERSIONS, type HostApp, post, startHostApp } from './host-app.js';

describe.each(EXPRESS_VERSIONS)('the agent loop through feedbackRouter in %s', (_v, express) => {
  let debrief: TestServer;
  let host: HostApp | undefined;
  beforeAll(async () => {
    debrief = await startTestServer('sqlite', AGENT_LOOP_ENV);
  });
  afterAll(() => debrief.close());
  afterEach(async () => {
    await host?.router.close();
    await host?.close();
    host = undefined;
  });

  it('passes the issue and its note on to the agent, and nothing more', async () => {
    const t = await debrief.tenant();
    const note = 'Fixed in 2.3, upgrade.';
    const issue = await notedIssue(
      debrief,
      t,
      { tool_name: 'GET /v1/search', details: 'page=2 returns the results of page 1' },
      { status: 'resolved', agent_note: note, note: 'private: off-by-one in the pager' },
    );
    host = await startHostApp(express, {
      ingestKey: t.ingestKey,
      baseUrl: debrief.url,
      json: false,
      countRequests: false,
    });
    const res = await post(
      `${host.url}/feedback`,
      JSON.stringify({
        outcome: 'failure',
        tool_name: 'GET /v1/search',
        details: 'page=2 returns the results of page 1 again',
      }),
    );
    expect(res).toMatchObject({ status: 201 });
    expect(res.body).toEqual({
      ok: true,
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      issue: { id: issue.id, status: 'resolved', agent_note: note },
    });
    expect(JSON.stringify(res.body)).not.toContain('private');
  });

  it('answers 502 without naming where Debrief lives', async () => {
    const port = await closedPort();
    host = await startHostApp(express, {
      ingestKey: `wk_${'a'.repeat(32)}`,
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
    const t = await debrief.tenant();
    host = await startHostApp(express, {
      ingestKey: t.ingestKey,
      baseUrl: debrief.url,
      json: true,
      capture: true,
      countRequests: false,
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
    // Captured reports travel in the background: their order of arrival is not the requests'.
    const reports = await reportsOf(debrief, t);
    expect(reports.map((r) => [r.outcome, r.tool_name]).sort()).toEqual([
      ['failure', 'GET /boom'],
      ['failure', 'GET /crash'],
    ]);
    expect(reports.find((r) => r.tool_name === 'GET /boom')).toMatchObject({
      details: 'GET /boom answered 500: {"error":"database connection lost"}',
      source: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
      metadata: { captured: true },
    });
  });

  it('counts 1,000 requests with 10 errors per route: the tools API shows them at close', async () => {
    const t = await debrief.tenant();
    host = await startHostApp(express, {
      ingestKey: t.ingestKey,
      baseUrl: debrief.url,
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
    const rates = await toolRatesOf(debrief, t);
    const byRoute = Object.fromEntries(
      rates.tools.map((r) => [r.tool_name, { calls: r.calls, errors: r.errors }]),
    );
    expect(byRoute).toEqual({
      'GET /users/:id': { calls: 990, errors: 0 },
      'GET /boom': { calls: 10, errors: 10 },
    });
    const all = rates.tools.reduce(
      (n, r) => ({ calls: n.calls + (r.calls ?? 0), errors: n.errors + (r.errors ?? 0) }),
      { calls: 0, errors: 0 },
    );
    expect(all.errors / all.calls).toBe(0.01);
  });
});
