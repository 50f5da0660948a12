import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import { startScriptedProxy } from '../../client/test/local-servers.js';
import { startReceiver } from '../../client/test/recording-receiver.js';
import { reportsOf, toolRatesOf } from '../../client/test/support/real-debrief.js';
import { textOf } from './mcp-pair.js';
import { SDK_KITS } from './sdk-kits.js';

const KEY = `wk_${'a'.repeat(32)}`;

/** Host tools that fail: one throws, one answers isError. No input schema, the same in both SDKs. */
function failingTools(server: any): void {
  server.registerTool('explode', { description: 'Always throws' }, async () => {
    throw new Error('database connection lost (attempt 3)');
  });
  server.registerTool('refuse', { description: 'Always answers isError' }, async () => ({
    content: [{ type: 'text', text: 'quota of the weather API exceeded' }],
    isError: true,
  }));
}

describe.each(SDK_KITS)('failure capture and call counts on %s', (_sdk, kit) => {
  let debrief: TestServer;
  beforeAll(async () => {
    debrief = await startTestServer('sqlite');
  });
  afterAll(() => debrief.close());

  it('turns a tool throwing 50 times in a burst into exactly one failure report', async () => {
    const t = await debrief.tenant();
    const dm = kit.createDebriefMcp({
      ingestKey: t.ingestKey,
      baseUrl: debrief.url,
      capture: true,
      countCalls: false,
    });
    const { client, close } = await kit.connectPair((server) => {
      failingTools(server);
      dm.attach(server);
    });
    try {
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => client.callTool({ name: 'explode', arguments: {} })),
      );
      // The agent gets the tool's own error, unchanged, every time.
      for (const answer of answers) {
        expect(answer.isError).toBe(true);
        expect(textOf(answer)).toContain('database connection lost (attempt 3)');
      }
      await dm.flush();
      const reports = await reportsOf(debrief, t);
      expect(reports).toHaveLength(1);
      expect(reports[0]).toMatchObject({
        outcome: 'failure',
        tool_name: 'explode',
        source: 'weather-mcp',
        details: 'Error: database connection lost (attempt 3)',
        metadata: {
          client_name: 'test-agent',
          client_version: '9.9.9',
          server_version: '1.2.3',
          captured: true,
        },
      });
    } finally {
      await close();
      await dm.close();
    }
  });

  it('captures an isError answer and a tool registered after attach, not report_feedback', async () => {
    const t = await debrief.tenant();
    const dm = kit.createDebriefMcp({
      ingestKey: t.ingestKey,
      baseUrl: debrief.url,
      capture: true,
      countCalls: false,
    });
    const { client, close } = await kit.connectPair((server) => {
      dm.attach(server);
      failingTools(server);
    });
    try {
      await client.callTool({ name: 'refuse', arguments: {} });
      await client.callTool({ name: 'explode', arguments: {} });
      await client.callTool({ name: 'forecast', arguments: { city_id: 'x' } });
      await client.callTool({
        name: 'report_feedback',
        arguments: { outcome: 'success', details: 'fine' },
      });
      await dm.flush();
      // Captured reports travel in the background: their order of arrival is not the calls'.
      const reports = await reportsOf(debrief, t);
      expect(reports.map((r) => [r.outcome, r.tool_name, r.details]).sort()).toEqual([
        ['failure', 'explode', 'Error: database connection lost (attempt 3)'],
        ['failure', 'refuse', 'quota of the weather API exceeded'],
        ['success', null, 'fine'],
      ]);
    } finally {
      await close();
      await dm.close();
    }
  });

  it('never delays the tool’s answer, even while Debrief hangs', async () => {
    const proxy = await startScriptedProxy(debrief.url, ['hang']);
    const failures: string[] = [];
    const dm = kit.createDebriefMcp({
      ingestKey: KEY,
      baseUrl: proxy.url,
      capture: true,
      countCalls: false,
      timeoutMs: 20_000,
      onError: (r) => failures.push(r.error.code),
    });
    const { client, close } = await kit.connectPair((server) => {
      failingTools(server);
      dm.attach(server);
    });
    try {
      const answer = await client.callTool({ name: 'explode', arguments: {} });
      expect(answer.isError).toBe(true);
      // The answer is back while the report is still on its way (it can only end by failing).
      expect(failures).toEqual([]);
      // Debrief goes away: the report fails in the background and the host hears of it once.
      await proxy.close();
      await dm.flush();
      expect(failures).toEqual(['network_error']);
    } finally {
      await proxy.close();
      await close();
      await dm.close();
    }
  });

  it('counts 1,000 calls with 10 errors: the tools API shows 1,000 calls and a 1 % error rate', async () => {
    const t = await debrief.tenant();
    let calls = 0;
    const { client, close } = await kit.connectPair((server) => {
      // Fails one call in a hundred.
      server.registerTool('search', { description: 'Search' }, async () => {
        calls += 1;
        if (calls % 100 === 0) throw new Error('index shard unavailable');
        return { content: [{ type: 'text', text: 'found' }] };
      });
      kit.attach(server, { ingestKey: t.ingestKey, baseUrl: debrief.url });
    });
    let closed = false;
    try {
      for (let i = 0; i < 1000; i += 50) {
        await Promise.all(
          Array.from({ length: 50 }, () => client.callTool({ name: 'search', arguments: {} })),
        );
      }
      await client.callTool({
        name: 'report_feedback',
        arguments: { outcome: 'failure', tool_name: 'search', details: 'shard unavailable' },
      });
      // Closing the host's server sends the counts of the minute.
      await close();
      closed = true;
      const rates = await toolRatesOf(debrief, t);
      expect(rates.tools).toEqual([
        {
          tool_name: 'search',
          calls: 1000,
          errors: 10,
          error_rate: 0.01,
          reports: 1,
          reports_per_1000_calls: 1,
        },
      ]);
    } finally {
      if (!closed) await close();
    }
  });

  it('shares one counter among servers built per request, sent at its close()', async () => {
    const receiver = await startReceiver();
    const dm = kit.createDebriefMcp({ ingestKey: KEY, baseUrl: receiver.url });
    try {
      for (let i = 0; i < 3; i++) {
        const { client, close } = await kit.connectPair((server) => dm.attach(server));
        await client.callTool({ name: 'forecast', arguments: { city_id: `c${i}` } });
        await close();
      }
      // A server per request must not mean a send per request.
      expect(receiver.to('/v1/usage')).toHaveLength(0);
      await dm.close();
      const calls = receiver
        .to('/v1/usage')
        .reduce((n, r) => n + (r.body.tools.forecast?.calls ?? 0), 0);
      expect(calls).toBe(3);
    } finally {
      await receiver.close();
    }
  });
});
