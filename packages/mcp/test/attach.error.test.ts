import { attach } from '@debrief/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import { closedPort, startScriptedProxy } from '../../client/test/local-servers.js';
import { connectPair, textOf } from './mcp-pair.js';

describe('attach(): report_feedback when things go wrong', () => {
  let debrief: TestServer;
  beforeAll(async () => {
    debrief = await startTestServer('sqlite');
  });
  afterAll(() => debrief.close());

  it('answers an invalid outcome with a tool error naming the allowed values', async () => {
    const t = await debrief.tenant();
    const { client, close } = await connectPair((server) =>
      attach(server, { ingestKey: t.ingestKey, baseUrl: debrief.url }),
    );
    try {
      const result = await client.callTool({
        name: 'report_feedback',
        arguments: { outcome: 'great', details: 'x' },
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('success, failure, confusing, gave_up, request');
      expect(textOf(result)).toContain('"great"');
    } finally {
      await close();
    }
  });

  it('fails fast and cleanly when Debrief is down, telling the host once', async () => {
    const failures: string[] = [];
    const downUrl = `http://127.0.0.1:${await closedPort()}`;
    const { client, close } = await connectPair((server) =>
      attach(server, {
        ingestKey: `wk_${'0'.repeat(32)}`,
        baseUrl: downUrl,
        timeoutMs: 2_000,
        onError: (r) => failures.push(r.error.code),
      }),
    );
    try {
      const result = await client.callTool({
        name: 'report_feedback',
        arguments: { outcome: 'failure', details: 'forecast returned 500' },
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/not delivered.*unreachable.*Carry on/s);
      expect(failures).toEqual(['network_error']);
      // The host's own tools are unaffected.
      const own = await client.callTool({ name: 'forecast', arguments: { city_id: 'x' } });
      expect(textOf(own)).toBe('Sunny in x');
    } finally {
      await close();
    }
  });

  it('never hangs longer than its timeout when Debrief stalls', async () => {
    const t = await debrief.tenant();
    const proxy = await startScriptedProxy(debrief.url, ['hang', 'hang']);
    const { client, close } = await connectPair((server) =>
      attach(server, {
        ingestKey: t.ingestKey,
        baseUrl: proxy.url,
        timeoutMs: 300,
        onError: () => {},
      }),
    );
    try {
      const result = await client.callTool({
        name: 'report_feedback',
        arguments: { outcome: 'gave_up', details: 'stalled' },
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('timeout');
    } finally {
      await close();
      await proxy.close();
    }
  });

  it('reports the 429 over quota to the agent and the host instead of swallowing it', async () => {
    const t = await debrief.tenant({ monthlyQuota: 0 });
    const failures: Array<{ status: number; retry?: number }> = [];
    const { client, close } = await connectPair((server) =>
      attach(server, {
        ingestKey: t.ingestKey,
        baseUrl: debrief.url,
        onError: (r) => failures.push({ status: r.error.status, retry: r.retry_after_seconds }),
      }),
    );
    try {
      const result = await client.callTool({
        name: 'report_feedback',
        arguments: { outcome: 'success', details: 'fine' },
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/quota for this month is used up/);
      expect(failures).toEqual([{ status: 429, retry: expect.any(Number) }]);
    } finally {
      await close();
    }
  });

  it('keeps a key problem between Debrief and the developer', async () => {
    const failures: string[] = [];
    const { client, close } = await connectPair((server) =>
      attach(server, {
        ingestKey: `wk_${'0'.repeat(32)}`,
        baseUrl: debrief.url,
        onError: (r) => failures.push(r.error.code),
      }),
    );
    try {
      const result = await client.callTool({
        name: 'report_feedback',
        arguments: { outcome: 'success', details: 'fine' },
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/feedback setup is wrong \(invalid_ingest_key\)/);
      expect(failures).toEqual(['invalid_ingest_key']);
    } finally {
      await close();
    }
  });

  it('still answers the agent when the host onError callback throws', async () => {
    const downUrl = `http://127.0.0.1:${await closedPort()}`;
    const { client, close } = await connectPair((server) =>
      attach(server, {
        ingestKey: `wk_${'0'.repeat(32)}`,
        baseUrl: downUrl,
        onError: () => {
          throw new Error('host logger broke');
        },
      }),
    );
    try {
      const result = await client.callTool({
        name: 'report_feedback',
        arguments: { outcome: 'failure', details: 'x' },
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^Feedback not delivered/);
    } finally {
      await close();
    }
  });
});
