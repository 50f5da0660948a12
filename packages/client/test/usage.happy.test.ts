import { createReporter, createUsageCounter } from '@debrief/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import { type Receiver, startReceiver } from './recording-receiver.js';
import { AGENT_LOOP_ENV, notedIssue, toolRateOf } from './support/real-debrief.js';

const KEY = `wk_${'a'.repeat(32)}`;

describe('call counts through POST /v1/usage', () => {
  let receiver: Receiver;
  afterEach(() => receiver?.close());

  it('sendUsage posts the window with the ingest key and resolves ok', async () => {
    receiver = await startReceiver();
    const reporter = createReporter({ ingestKey: KEY, baseUrl: receiver.url });
    const result = await reporter.sendUsage({
      window_start: '2026-11-28T01:00:00Z',
      instance: 'i1',
      tools: { search: { calls: 3, errors: 1 } },
    });
    expect(result).toEqual({ ok: true, attempts: 1 });
    expect(receiver.to('/v1/usage')[0]?.body).toEqual({
      ingest_key: KEY,
      window_start: '2026-11-28T01:00:00Z',
      instance: 'i1',
      tools: { search: { calls: 3, errors: 1 } },
    });
  });

  it('counts 1,000 calls with 10 errors into closed minute windows and sends them on close', async () => {
    receiver = await startReceiver();
    const reporter = createReporter({ ingestKey: KEY, baseUrl: receiver.url });
    let clock = Date.parse('2026-11-28T01:00:10Z');
    const counter = createUsageCounter({
      send: (input) => reporter.sendUsage(input),
      instance: 'host-1',
      serverVersion: '1.2.3',
      now: () => clock,
    });
    for (let i = 0; i < 1000; i++) {
      counter.record('search', i % 100 === 0);
      if (i === 599) clock = Date.parse('2026-11-28T01:01:05Z');
    }
    counter.record('lookup', false);
    await counter.close();
    const bodies = receiver.to('/v1/usage').map((r) => r.body);
    expect(bodies).toEqual([
      {
        ingest_key: KEY,
        window_start: '2026-11-28T01:00:00Z',
        instance: 'host-1',
        server_version: '1.2.3',
        tools: { search: { calls: 600, errors: 6 } },
      },
      {
        ingest_key: KEY,
        window_start: '2026-11-28T01:01:00Z',
        instance: 'host-1',
        server_version: '1.2.3',
        tools: { search: { calls: 400, errors: 4 }, lookup: { calls: 1, errors: 0 } },
      },
    ]);
    const total = bodies.reduce((n, b) => n + b.tools.search.calls, 0);
    expect(total).toBe(1000);
    // Closed: nothing more is counted or sent.
    counter.record('search', false);
    await counter.flush();
    expect(receiver.to('/v1/usage')).toHaveLength(2);
  });

  it('keeps a window Debrief did not take and sends it again with the next flush', async () => {
    let refuse = true;
    receiver = await startReceiver((path) =>
      path === '/v1/usage' && refuse
        ? {
            status: 503,
            body: {
              ok: false,
              type: 'x',
              title: 'x',
              status: 503,
              detail: 'x',
              code: 'unavailable',
            },
          }
        : undefined,
    );
    const reporter = createReporter({ ingestKey: KEY, baseUrl: receiver.url, retries: 0 });
    const errors: number[] = [];
    const counter = createUsageCounter({
      send: (input) => reporter.sendUsage(input),
      onError: (r) => errors.push(r.error.status),
    });
    counter.record('search', true);
    await counter.flush();
    refuse = false;
    await counter.close();
    expect(errors).toEqual([503]);
    const bodies = receiver.to('/v1/usage').map((r) => r.body);
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[1].tools).toEqual({ search: { calls: 1, errors: 1 } });
  });

  it('stops sending when the server has no usage endpoint', async () => {
    receiver = await startReceiver((path) =>
      path === '/v1/usage'
        ? {
            status: 404,
            body: { ok: false, type: 'x', title: 'x', status: 404, detail: 'x', code: 'not_found' },
          }
        : undefined,
    );
    const reporter = createReporter({ ingestKey: KEY, baseUrl: receiver.url });
    const counter = createUsageCounter({
      send: (input) => reporter.sendUsage(input),
      onError: () => {},
    });
    counter.record('a', false);
    await counter.flush();
    counter.record('a', false);
    await counter.close();
    expect(receiver.to('/v1/usage')).toHaveLength(1);
  });

  it('sends the forwarding headers only with both the secret and the agent address', async () => {
    receiver = await startReceiver();
    const reporter = createReporter({
      ingestKey: KEY,
      baseUrl: receiver.url,
      forwardingSecret: 'fs_secret',
    });
    await reporter.report({ outcome: 'success', details: 'x' }, { forwardedFor: '203.0.113.7' });
    await reporter.report({ outcome: 'success', details: 'y' });
    const [withAgent, without] = receiver.to('/v1/reports');
    expect(withAgent?.headers['debrief-forwarding-secret']).toBe('fs_secret');
    expect(withAgent?.headers['debrief-forwarded-for']).toBe('203.0.113.7');
    expect(without?.headers['debrief-forwarding-secret']).toBeUndefined();
  });

  it('passes the issue of the submit answer through, and ignores a malformed one', async () => {
    let n = 0;
    receiver = await startReceiver((path) => {
      if (path !== '/v1/reports') return undefined;
      n += 1;
      const id = 'f'.repeat(32);
      return n === 1
        ? {
            status: 201,
            body: {
              ok: true,
              id,
              issue: { id: 'e'.repeat(32), status: 'resolved', agent_note: 'Upgrade to 2.3.' },
            },
          }
        : { status: 201, body: { ok: true, id, issue: { status: 3 } } };
    });
    const reporter = createReporter({ ingestKey: KEY, baseUrl: receiver.url });
    expect(await reporter.report({ outcome: 'failure', details: 'x' })).toEqual({
      ok: true,
      id: 'f'.repeat(32),
      attempts: 1,
      issue: { id: 'e'.repeat(32), status: 'resolved', agent_note: 'Upgrade to 2.3.' },
    });
    expect(await reporter.report({ outcome: 'failure', details: 'x' })).toEqual({
      ok: true,
      id: 'f'.repeat(32),
      attempts: 1,
    });
  });
});

describe('call counts and the issue answer against a real Debrief', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', AGENT_LOOP_ENV);
  });
  afterAll(() => server.close());

  it('1,000 calls with 10 errors, flushed midway, show as 1,000 calls and a 1 % error rate', async () => {
    const t = await server.tenant();
    const reporter = createReporter({ ingestKey: t.ingestKey, baseUrl: server.url });
    const errors: unknown[] = [];
    const counter = createUsageCounter({
      send: (input) => reporter.sendUsage(input),
      serverVersion: '1.2.3',
      onError: (r) => errors.push(r.error),
    });
    for (let i = 0; i < 600; i++) counter.record('search', i % 100 === 0);
    // The current minute sent, then grown: sent again, it replaces what Debrief had.
    await counter.flush();
    for (let i = 600; i < 1000; i++) counter.record('search', i % 100 === 0);
    await counter.close();
    expect(errors).toEqual([]);
    expect(await toolRateOf(server, t, 'search')).toEqual({
      tool_name: 'search',
      calls: 1000,
      errors: 10,
      error_rate: 0.01,
      reports: 0,
      reports_per_1000_calls: 0,
    });
  });

  it('report() hands back the issue and its agent note, and nothing more', async () => {
    const t = await server.tenant();
    const issue = await notedIssue(
      server,
      t,
      { tool_name: 'search', details: 'Search returns nothing for quoted phrases' },
      { agent_note: 'Drop the quotes until 2.3.', note: 'private: tokenizer bug' },
    );
    const reporter = createReporter({ ingestKey: t.ingestKey, baseUrl: server.url });
    const result = await reporter.report({
      outcome: 'failure',
      tool_name: 'search',
      details: 'search returns nothing for quoted phrases',
    });
    expect(result).toEqual({
      ok: true,
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      attempts: 1,
      issue: { id: issue.id, status: 'open', agent_note: 'Drop the quotes until 2.3.' },
    });
  });
});
