import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/**
 * A real McpServer ("weather-mcp" 1.2.3, with one tool of its own) and a real Client
 * ("test-agent" 9.9.9), linked in memory; `setup` attaches before the handshake, as hosts do.
 */
export async function connectPair(
  setup: (server: McpServer) => unknown,
  serverOptions: { instructions?: string } = {},
) {
  const server = new McpServer({ name: 'weather-mcp', version: '1.2.3' }, serverOptions);
  server.registerTool(
    'forecast',
    { description: 'Forecast for a city id', inputSchema: { city_id: z.string() } },
    async ({ city_id }) => ({ content: [{ type: 'text', text: `Sunny in ${city_id}` }] }),
  );
  setup(server);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test-agent', version: '9.9.9' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return {
    server,
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

export function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((c) => c.text ?? '').join('\n');
}
