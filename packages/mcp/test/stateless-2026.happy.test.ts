import { createDebriefMcp, DEBRIEF_INSTRUCTIONS, withDebriefInstructions } from '@debrief/mcp/v2';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../../client/test/recording-receiver.js';
import { textOf } from './mcp-pair.js';

const KEY = `wk_${'a'.repeat(32)}`;
const NOTED_ISSUE = {
  id: 'e'.repeat(32),
  status: 'ignored',
  agent_note: 'Not planned: use cities.',
};

/**
 * MCP 2026-07-28 as SDK 2.x serves it over HTTP: stateless, a server built per request by the
 * host's factory, the client in each request's `_meta` envelope, the instructions at
 * `server/discover`. The client's fetch calls the handler directly: real both ends, no socket.
 */
async function connectStateless(debrief: ReturnType<typeof createDebriefMcp>) {
  const handler = createMcpHandler(() => {
    const server = new McpServer(
      { name: 'weather-mcp', version: '2.0.0' },
      { instructions: withDebriefInstructions('Call forecast with a city id.') },
    );
    server.registerTool('explode', { description: 'Always throws' }, async () => {
      throw new Error('database connection lost (attempt 3)');
    });
    server.registerTool('forecast', { description: 'Forecast' }, async () => ({
      content: [{ type: 'text', text: 'Sunny' }],
    }));
    debrief.attach(server);
    return server;
  });
  const transport = new StreamableHTTPClientTransport(new URL('http://weather.test/mcp'), {
    fetch: (url, init) => handler.fetch(new Request(url, init)),
  });
  const client = new Client(
    { name: 'test-agent', version: '9.9.9' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(transport);
  return {
    client,
    async close() {
      await client.close();
      await handler.close();
    },
  };
}

describe('SDK 2.x on protocol 2026-07-28, stateless', () => {
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it('serves the instructions, hands the note back, and reads the client from the envelope', async () => {
    receiver = await startReceiver((path) =>
      path === '/v1/reports'
        ? { status: 201, body: { ok: true, id: 'f'.repeat(32), issue: NOTED_ISSUE } }
        : undefined,
    );
    const debrief = createDebriefMcp({ ingestKey: KEY, baseUrl: receiver.url, capture: true });
    const { client, close } = await connectStateless(debrief);
    try {
      expect(client.getInstructions()?.endsWith(DEBRIEF_INSTRUCTIONS)).toBe(true);
      const result = await client.callTool({
        name: 'report_feedback',
        arguments: { outcome: 'request', details: 'wanted hourly forecasts' },
      });
      expect(result.structuredContent).toEqual({ id: 'f'.repeat(32), issue: NOTED_ISSUE });
      expect(textOf(result)).toContain('Their note for agents: Not planned: use cities.');

      const answers = await Promise.all(
        Array.from({ length: 50 }, () => client.callTool({ name: 'explode', arguments: {} })),
      );
      for (const answer of answers) expect(answer.isError).toBe(true);
      for (let i = 0; i < 5; i++) await client.callTool({ name: 'forecast', arguments: {} });
      await debrief.close();

      const reports = receiver.to('/v1/reports').map((r) => r.body);
      expect(reports).toHaveLength(2);
      expect(reports[0].metadata).toMatchObject({ client_name: 'test-agent' });
      expect(reports[1]).toMatchObject({
        outcome: 'failure',
        tool_name: 'explode',
        source: 'weather-mcp',
        metadata: { client_name: 'test-agent', client_version: '9.9.9', captured: true },
      });
      const tools = receiver.to('/v1/usage').map((r) => r.body.tools);
      const sum = (name: string) => tools.reduce((n, t) => n + (t[name]?.calls ?? 0), 0);
      expect([sum('explode'), sum('forecast')]).toEqual([50, 5]);
    } finally {
      await close();
    }
  });
});
