import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

/** The SDK 2.x twin of `connectPair`: the same host server and client, on the 2.x packages. */
export async function connectPairV2(
  setup: (server: McpServer) => unknown,
  serverOptions: { instructions?: string } = {},
) {
  const server = new McpServer({ name: 'weather-mcp', version: '1.2.3' }, serverOptions);
  server.registerTool(
    'forecast',
    { description: 'Forecast for a city id', inputSchema: z.object({ city_id: z.string() }) },
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
