import {
  createFailureCapture,
  createReporter,
  createUsageCounter,
  type FailureCapture,
  type ReportResult,
  type UsageCounter,
} from '@debrief/client';
import {
  DEFAULT_TOOL_NAME,
  FeedbackToolInput,
  FeedbackToolOutput,
  feedbackToolDescription,
  TOOL_TITLE,
} from './feedback-tool.schema.js';
import {
  type ClientInfo,
  instrumentTools,
  type McpServerLike,
  serverInfoOf,
} from './host-tools.js';
import { type ToolAnswer, toolAnswer } from './tool-answer.js';

export const DEFAULT_MCP_TIMEOUT_MS = 5_000;
const METADATA_TEXT_MAX = 200;

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
   * Report the host's own tools that throw or answer `isError` as `failure` reports (tool name,
   * error text, client). Equal failures are sent once per 10 minutes, at most 10 a minute; an
   * object sets those bounds. Default off.
   */
  capture?: boolean | { dedupeMs?: number; maxPerMinute?: number };
  /**
   * Count calls and errors per tool and send them every minute and when the server closes to
   * `POST /v1/usage`, so Debrief can show error rates and reports per 1,000 calls. Default on.
   */
  countCalls?: boolean;
  /**
   * Called when a report or a window of counts could not be delivered, so the failure is not
   * silent. Default: one line on stderr (never stdout, which a stdio MCP server uses).
   */
  onError?: (result: Extract<ReportResult, { ok: false }>) => void;
}

/** One Debrief connection shared by every server it is attached to. */
export interface DebriefMcp {
  /** Sends the call counts gathered so far. */
  flush(): Promise<void>;
  /** Stops the minute timer and sends what is left; call it when the process shuts down. */
  close(): Promise<void>;
}

/** What a version's entry point adds: how to read the calling client from a handler's context. */
export interface SdkAdapter<Server extends McpServerLike, Registered> {
  clientOf(server: Server, context: unknown): ClientInfo | undefined;
  register(
    server: Server,
    name: string,
    config: {
      title: string;
      description: string;
      inputSchema: typeof FeedbackToolInput;
      outputSchema: typeof FeedbackToolOutput;
      annotations: Record<string, boolean>;
    },
    handler: (args: FeedbackToolInput, context: unknown) => Promise<ToolAnswer>,
  ): Registered;
}

/**
 * The add-on's single entry: one reporter, one capture, one counter, attachable to several
 * servers (a stateless HTTP host builds a server per request). The SDK entry points are thin
 * adapters over it.
 */
export function createDebriefCore<Server extends McpServerLike, Registered>(
  options: AttachOptions,
  adapter: SdkAdapter<Server, Registered>,
  /**
   * Send the counts when an attached server closes: right for one long-lived server, wrong for
   * a server per request (a send per request), whose host calls `close()` at shutdown instead.
   */
  flushOnServerClose = false,
): DebriefMcp & { attach(server: Server): Registered } {
  const toolName = options.toolName ?? DEFAULT_TOOL_NAME;
  const onError = safe(options.onError ?? defaultOnError);
  const reporter = createReporter({
    ingestKey: options.ingestKey,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    ...(options.source ? { source: options.source } : {}),
    timeoutMs: options.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS,
  });
  const captureBounds = typeof options.capture === 'object' ? options.capture : {};
  const capture: FailureCapture | undefined = options.capture
    ? createFailureCapture({ report: (input) => reporter.report(input), onError, ...captureBounds })
    : undefined;
  let counter: UsageCounter | undefined;

  function counterFor(serverVersion: string | undefined): UsageCounter | undefined {
    if (options.countCalls === false) return undefined;
    counter ??= createUsageCounter({
      send: (input) => reporter.sendUsage(input),
      serverVersion: serverVersion?.slice(0, METADATA_TEXT_MAX),
      onError,
    });
    return counter;
  }

  function metadataOf(client: ClientInfo | undefined, serverVersion: string | undefined) {
    const metadata: Record<string, string> = {};
    if (client?.name) metadata.client_name = client.name.slice(0, METADATA_TEXT_MAX);
    if (client?.version) metadata.client_version = client.version.slice(0, METADATA_TEXT_MAX);
    if (serverVersion) metadata.server_version = serverVersion.slice(0, METADATA_TEXT_MAX);
    return metadata;
  }

  return {
    attach(server) {
      const serverInfo = serverInfoOf(server);
      const serverName = serverInfo?.name || 'this MCP server';
      const source = options.source ?? serverInfo?.name;
      const usage = counterFor(serverInfo?.version);
      if (capture || usage) {
        instrumentTools(server, toolName, (name, outcome, context) => {
          usage?.record(name, outcome.failed);
          if (capture && outcome.failed) {
            capture.capture({
              name,
              error: outcome.error,
              source,
              metadata: metadataOf(adapter.clientOf(server, context), serverInfo?.version),
            });
          }
        });
        if (usage && flushOnServerClose) onServerClose(server, () => usage.flush());
      }
      return adapter.register(
        server,
        toolName,
        {
          title: TOOL_TITLE,
          description: feedbackToolDescription(serverName),
          inputSchema: FeedbackToolInput,
          outputSchema: FeedbackToolOutput,
          annotations: {
            readOnlyHint: false,
            destructiveHint: false,
            idempotentHint: false,
            openWorldHint: true,
          },
        },
        async (args, context) => {
          // Read at call time: the handshake comes after attach(), and each session has its own.
          const client = adapter.clientOf(server, context);
          const result = await reporter.report({
            outcome: args.outcome,
            details: args.details,
            tool_name: args.tool_name,
            ...(source ? { source } : {}),
            metadata: metadataOf(client, serverInfo?.version),
          });
          if (!result.ok) onError(result);
          return toolAnswer(result, serverName);
        },
      );
    },
    flush: async () => {
      await Promise.all([counter?.flush(), capture?.settled()]);
    },
    close: async () => {
      await Promise.all([counter?.close(), capture?.settled()]);
    },
  };
}

/**
 * Sends the counts when the server closes: `close()` by the host, or the transport going away
 * (a stdio client exiting). Both hooks chain to what was there; neither can throw into the host.
 */
function onServerClose(server: McpServerLike, flush: () => Promise<void>): void {
  const close = server.close.bind(server);
  server.close = async () => {
    try {
      await close();
    } finally {
      await flush().catch(() => {});
    }
  };
  const inner = server.server;
  const previous = inner.onclose;
  inner.onclose = () => {
    previous?.call(inner);
    void flush().catch(() => {});
  };
}

function safe<T>(callback: (value: T) => void): (value: T) => void {
  return (value) => {
    try {
      callback(value);
    } catch {
      // The host's callback must not turn a delivered answer into a crash.
    }
  };
}

function defaultOnError(result: Extract<ReportResult, { ok: false }>): void {
  console.warn(`[debrief] not delivered to Debrief: ${result.error.code}: ${result.error.detail}`);
}
