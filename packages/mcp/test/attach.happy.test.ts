import { createReader } from '@debrief/client';
import { attach } from '@debrief/mcp';
import { OUTCOMES } from '@debrief/protocol';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import { connectPair, textOf } from './mcp-pair.js';

describe('attach(): report_feedback on a real MCP server', () => {
  let debrief: TestServer;
  beforeAll(async () => {
    debrief = await startTestServer('sqlite');
  });
  afterAll(() => debrief.close());

  it('lists the tool with a title, a when-to-call description and the protocol schema', async () => {
    const t = await debrief.tenant();
    const { client, close } = await connectPair((server) =>
      attach(server, { ingestKey: t.ingestKey, baseUrl: debrief.url }),
    );
    try {
      const { tools } = await client.listTools();
      const tool = tools.find((x) => x.name === 'report_feedback');
      expect(tool?.title).toBeTruthy();
      expect(tool?.description).toContain('weather-mcp');
      for (const outcome of OUTCOMES) expect(tool?.description).toContain(`- ${outcome}:`);
      expect(tool?.description).toMatch(/could not use the tools at all/);
      const schema = tool?.inputSchema as any;
      expect(schema.properties.outcome.enum).toEqual([...OUTCOMES]);
      expect(schema.properties.details.type).toBe('string');
      expect(schema.properties.tool_name).toBeDefined();
      expect(schema.properties.source).toBeUndefined();
      expect(schema.properties.metadata).toBeUndefined();
      expect([...schema.required].sort()).toEqual(['details', 'outcome']);
    } finally {
      await close();
    }
  });

  it('delivers a report with the server name as source and the client in metadata', async () => {
    const t = await debrief.tenant();
    const { client, close } = await connectPair((server) =>
      attach(server, { ingestKey: t.ingestKey, baseUrl: debrief.url }),
    );
    try {
      const result = await client.callTool({
        name: 'report_feedback',
        arguments: {
          outcome: 'confusing',
          details: 'forecast wants a city id, but nothing lists city ids.',
          tool_name: 'forecast',
        },
      });
      expect(result.isError).toBeFalsy();
      const id = /report ([0-9a-f]{32})/.exec(textOf(result))?.[1];
      expect(id).toBeDefined();
      const list = await createReader({ apiKey: t.apiKey, baseUrl: debrief.url }).getReports(
        t.projectId,
      );
      // Without issue_id and issue_reason: grouping runs after the 201, so the report may or may
      // not have its issue yet (the server's issues tests cover them).
      const reports = list.reports.map(({ issue_id: _issue, issue_reason: _reason, ...r }) => r);
      expect(reports).toEqual([
        {
          id,
          outcome: 'confusing',
          details: 'forecast wants a city id, but nothing lists city ids.',
          tool_name: 'forecast',
          source: 'weather-mcp',
          metadata: { client_name: 'test-agent', client_version: '9.9.9', server_version: '1.2.3' },
          created_at: expect.any(String),
          redactions: 0,
        },
      ]);
    } finally {
      await close();
    }
  });

  it('honours the source and toolName options, and tool_name may be omitted', async () => {
    const t = await debrief.tenant();
    const { client, close } = await connectPair((server) =>
      attach(server, {
        ingestKey: t.ingestKey,
        baseUrl: debrief.url,
        source: 'weather-prod',
        toolName: 'feedback',
      }),
    );
    try {
      const result = await client.callTool({
        name: 'feedback',
        arguments: { outcome: 'success', details: 'All good.' },
      });
      expect(result.isError).toBeFalsy();
      const list = await createReader({ apiKey: t.apiKey, baseUrl: debrief.url }).getReports(
        t.projectId,
      );
      expect(list.reports[0]).toMatchObject({ source: 'weather-prod', tool_name: null });
    } finally {
      await close();
    }
  });

  it('works next to the host tools on a server built the usual way', async () => {
    const t = await debrief.tenant();
    const server = new McpServer({ name: 'plain', version: '0.0.1' });
    attach(server, { ingestKey: t.ingestKey, baseUrl: debrief.url });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'other-agent', version: '1.0.0' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name)).toEqual(['report_feedback']);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
