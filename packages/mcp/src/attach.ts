import { createReporter, type ReportResult } from '@debrief/client';
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  DEFAULT_TOOL_NAME,
  FeedbackToolInput,
  feedbackToolDescription,
  TOOL_TITLE,
} from './feedback-tool.schema.js';
import { toolAnswer } from './tool-answer.js';

export const DEFAULT_MCP_TIMEOUT_MS = 5_000;

export interface AttachOptions {
  /** The project's public ingest key, `wk_` + 32 hex; else `DEBRIEF_INGEST_KEY`. */
  ingestKey?: string | undefined;
  /** Debrief's base URL; else `DEBRIEF_URL`, else `http://localhost:8080`. */
  baseUrl?: string;
  /** `source` of the reports; defaults to the MCP server's own name. */
  source?: string;
  /** Name of the tool; default `report_feedback`. */
  toolName?: string;
  /** Longest the tool waits for Debrief, retries included. Default 5,000 ms. */
  timeoutMs?: number;
  /**
   * Called when a report could not be delivered, so the failure is not silent. Default: one
   * line on stderr (never stdout, which a stdio MCP server uses for the protocol).
   */
  onError?: (result: Extract<ReportResult, { ok: false }>) => void;
}

const METADATA_TEXT_MAX = 200;

/**
 * Registers the feedback tool on `server`. Call it before connecting a transport, like any
 * other registration; it throws only if a tool of that name is already registered.
 */
export function attach(server: McpServer, options: AttachOptions): RegisteredTool {
  const serverInfo = serverInfoOf(server);
  const serverName = serverInfo?.name || 'this MCP server';
  const reporter = createReporter({
    ingestKey: options.ingestKey,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    source: options.source ?? serverInfo?.name,
    timeoutMs: options.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS,
  });
  const onError = options.onError ?? defaultOnError;

  return server.registerTool(
    options.toolName ?? DEFAULT_TOOL_NAME,
    {
      title: TOOL_TITLE,
      description: feedbackToolDescription(serverName),
      inputSchema: FeedbackToolInput,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    },
    async (args) => {
      // Read at call time: the handshake happens after attach(), and each session has its own.
      const client = server.server.getClientVersion();
      const metadata: Record<string, string> = {};
      if (client?.name) metadata.client_name = client.name.slice(0, METADATA_TEXT_MAX);
      if (client?.version) metadata.client_version = client.version.slice(0, METADATA_TEXT_MAX);
      if (serverInfo?.version)
        metadata.server_version = serverInfo.version.slice(0, METADATA_TEXT_MAX);
      const result = await reporter.report({
        outcome: args.outcome,
        details: args.details,
        tool_name: args.tool_name,
        metadata,
      });
      if (!result.ok) {
        try {
          onError(result);
        } catch {
          // The host's callback must not turn a delivered answer into a crash.
        }
      }
      return toolAnswer(result, serverName);
    },
  );
}

/**
 * The name and version the server announces in the handshake. The SDK keeps them in a private
 * field with no getter (1.x), so read it defensively: a missing value only loses the default.
 */
function serverInfoOf(server: McpServer): { name?: string; version?: string } | undefined {
  const info = (server.server as unknown as { _serverInfo?: unknown })._serverInfo;
  return typeof info === 'object' && info !== null
    ? (info as { name?: string; version?: string })
    : undefined;
}

function defaultOnError(result: Extract<ReportResult, { ok: false }>): void {
  console.warn(`[debrief] feedback not delivered: ${result.error.code}: ${result.error.detail}`);
}
