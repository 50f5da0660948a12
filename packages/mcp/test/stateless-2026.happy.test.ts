import { createDebriefMcp, DEBRIEF_INSTRUCTIONS, withDebriefInstructions } from '@debrief/mcp/v2';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import {
  AGENT_LOOP_ENV,
  notedIssue,
  reportsOf,
  toolRatesOf,
} from '../../client/test/support/real-debrief.js';
import { textOf } from './mcp-pair.js';

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

describe('SDK 2.x on protocol 2026-07-28, stateless, against a real Debrief', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', AGENT_LOOP_ENV);
  });
  afterAll(() => server.close());

  it('serves the instructions, hands the note back, and reads the client from the envelope', async () => {
    const t = await server.tenant();
    const note = 'Not planned: use cities.';
    const issue = await notedIssue(
      server,
      t,
      {
        outcome: 'request',
        tool_name: 'forecast',
        details: 'Wanted hourly forecasts, only daily ones exist',
      },
      { status: 'ignored', agent_note: note },
    );
    const debrief = createDebriefMcp({
      ingestKey: t.ingestKey,
      baseUrl: server.url,
      capture: true,
    });
    const { client, close } = await connectStateless(debrief);
    try {
      expect(client.getInstructions()?.endsWith(DEBRIEF_INSTRUCTIONS)).toBe(true);
      const result = await client.callTool({
        name: 'report_feedback',
        arguments: {
          outcome: 'request',
          tool_name: 'forecast',
          details: 'wanted hourly forecasts, only daily ones exist',
        },
      });
      expect(result.structuredContent).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{32}$/),
        issue: { id: issue.id, status: 'ignored', agent_note: note },
      });
      expect(textOf(result)).toContain(`Their note for agents: ${note}`);

      const answers = await Promise.all(
        Array.from({ length: 50 }, () => client.callTool({ name: 'explode', arguments: {} })),
      );
      for (const answer of answers) expect(answer.isError).toBe(true);
      for (let i = 0; i < 5; i++) await client.callTool({ name: 'forecast', arguments: {} });
      await debrief.close();

      // Newest first: the captured failure, the agent's request, the first report of the issue.
      const reports = await reportsOf(server, t);
      expect(reports).toHaveLength(3);
      expect(reports[1]?.metadata).toMatchObject({
        client_name: 'test-agent',
        client_version: '9.9.9',
      });
      expect(reports[0]).toMatchObject({
        outcome: 'failure',
        tool_name: 'explode',
        source: 'weather-mcp',
        details: 'Error: database connection lost (attempt 3)',
        metadata: {
          client_name: 'test-agent',
          client_version: '9.9.9',
          server_version: '2.0.0',
          captured: true,
        },
      });
      const rates = await toolRatesOf(server, t);
      const byName = Object.fromEntries(
        rates.tools.map((r) => [r.tool_name, [r.calls, r.errors, r.reports]]),
      );
      expect(byName).toEqual({ explode: [50, 50, 1], forecast: [5, 0, 2] });
    } finally {
      await close();
    }
  });
});
