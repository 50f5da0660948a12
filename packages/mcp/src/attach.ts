import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  type AttachOptions,
  createDebriefCore,
  type DebriefMcp,
  type SdkAdapter,
} from './debrief-mcp.js';

/** SDK 1.x: the client is the one of the connection's `initialize` handshake. */
const sdk1: SdkAdapter<McpServer, RegisteredTool> = {
  clientOf: (server) => server.server.getClientVersion(),
  register: (server, name, config, handler) =>
    server.registerTool(name, config, (args, extra) => handler(args, extra)),
};

/**
 * Registers the feedback tool on `server` (SDK 1.x `McpServer`). Call it before connecting a
 * transport, like any other registration; it throws only if a tool of that name exists.
 */
export function attach(server: McpServer, options: AttachOptions): RegisteredTool {
  return createDebriefCore(options, sdk1, true).attach(server);
}

/**
 * One Debrief connection for several servers (one per session or per request): one reporter,
 * one failure capture, one call counter. `close()` it at shutdown.
 */
export function createDebriefMcp(
  options: AttachOptions,
): DebriefMcp & { attach(server: McpServer): RegisteredTool } {
  return createDebriefCore(options, sdk1);
}
