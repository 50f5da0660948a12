import {
  CLIENT_INFO_META_KEY,
  type McpServer,
  type RegisteredTool,
} from '@modelcontextprotocol/server';
import {
  type AttachOptions,
  createDebriefCore,
  type DebriefMcp,
  type SdkAdapter,
} from '../debrief-mcp.js';
import type { ClientInfo } from '../host-tools.js';

/**
 * SDK 2.x: from protocol 2026-07-28 on every request carries the client in its `_meta`
 * envelope (there may be no handshake at all); older connections still have the handshake's.
 */
const sdk2: SdkAdapter<McpServer, RegisteredTool> = {
  clientOf(server, context) {
    const envelope = (context as { mcpReq?: { envelope?: Record<string, unknown> } } | undefined)
      ?.mcpReq?.envelope;
    const fromRequest = envelope?.[CLIENT_INFO_META_KEY];
    if (typeof fromRequest === 'object' && fromRequest !== null) return fromRequest as ClientInfo;
    return server.server.getClientVersion();
  },
  register: (server, name, config, handler) =>
    server.registerTool(name, config, (args, ctx) => handler(args, ctx)),
};

/**
 * Registers the feedback tool on `server` (SDK 2.x `McpServer` from `@modelcontextprotocol/server`).
 * Call it before connecting a transport; it throws only if a tool of that name exists.
 */
export function attach(server: McpServer, options: AttachOptions): RegisteredTool {
  return createDebriefCore(options, sdk2, true).attach(server);
}

/**
 * One Debrief connection for several servers: a stateless HTTP host builds a server per request,
 * so create this once and `attach` each server to it. `close()` it at shutdown.
 */
export function createDebriefMcp(
  options: AttachOptions,
): DebriefMcp & { attach(server: McpServer): RegisteredTool } {
  return createDebriefCore(options, sdk2);
}
