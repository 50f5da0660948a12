export interface ClientInfo {
  name?: string;
  version?: string;
}

/**
 * The parts of an `McpServer` the add-on touches, the same in SDK 1.x and 2.x. Structural, so the
 * shared code imports neither SDK.
 */
export interface McpServerLike {
  // biome-ignore lint/suspicious/noExplicitAny: the SDKs' overloads differ; the adapters type them.
  registerTool(name: string, config: any, callback: any): unknown;
  connect(transport: never): Promise<void>;
  close(): Promise<void>;
  server: { getClientVersion(): ClientInfo | undefined; onclose?: (() => void) | undefined };
}

/** How one call of a host tool ended. */
export type CallOutcome = { failed: false } | { failed: true; error: string };

type Observer = (name: string, outcome: CallOutcome, context: unknown) => void;
type Handler = (...args: unknown[]) => unknown;

interface RegisteredToolLike {
  handler?: unknown;
  update?: (updates: { callback: Handler }) => void;
}

const observed = new WeakSet<Handler>();

/**
 * Wraps the host's tool handlers so each call is observed after it ends: the tools registered
 * already (read from the server's registry, which no SDK version exposes publicly, so read
 * defensively), those registered later through `registerTool`, and at `connect` any the
 * scan missed. The wrapper hands back exactly what the tool returned or threw, at once: what
 * the observer does (counting, a report in the background) never delays or changes the answer.
 */
export function instrumentTools(server: McpServerLike, ownTool: string, observe: Observer): void {
  const wrap = (name: string, handler: Handler): Handler => {
    if (observed.has(handler)) return handler;
    const wrapped: Handler = async (...args) => {
      let result: unknown;
      try {
        result = await handler(...args);
      } catch (error) {
        notify(observe, name, { failed: true, error: errorText(error) }, args);
        throw error;
      }
      notify(observe, name, outcomeOf(result), args);
      return result;
    };
    observed.add(wrapped);
    return wrapped;
  };

  const scan = () => {
    const registry = (server as unknown as { _registeredTools?: unknown })._registeredTools;
    if (typeof registry !== 'object' || registry === null) return;
    for (const [name, tool] of Object.entries(registry as Record<string, RegisteredToolLike>)) {
      if (name === ownTool || typeof tool?.handler !== 'function') continue;
      if (observed.has(tool.handler as Handler) || typeof tool.update !== 'function') continue;
      tool.update({ callback: wrap(name, tool.handler as Handler) });
    }
  };
  scan();

  const register = server.registerTool.bind(server);
  server.registerTool = (name: string, config: unknown, callback: unknown) =>
    register(
      name,
      config,
      name !== ownTool && typeof callback === 'function'
        ? wrap(name, callback as Handler)
        : callback,
    );

  const connect = server.connect.bind(server);
  server.connect = (transport: never) => {
    scan();
    return connect(transport);
  };
}

function notify(observe: Observer, name: string, outcome: CallOutcome, args: unknown[]): void {
  try {
    // The handler's last argument is the SDK's request context (`extra` in 1.x, `ctx` in 2.x).
    observe(name, outcome, args[args.length - 1]);
  } catch {
    // Observing is a guest in the host's call path.
  }
}

function outcomeOf(result: unknown): CallOutcome {
  if (typeof result !== 'object' || result === null) return { failed: false };
  const { isError, content } = result as { isError?: unknown; content?: unknown };
  if (isError !== true) return { failed: false };
  const text = Array.isArray(content)
    ? content
        .map((block) =>
          typeof block === 'object' && block !== null && typeof block.text === 'string'
            ? block.text
            : '',
        )
        .filter(Boolean)
        .join('\n')
    : '';
  return { failed: true, error: text || 'The tool answered isError without a message.' };
}

function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return typeof error === 'string' ? error : 'The tool threw a value that is not an Error.';
}

/**
 * The name and version the server announces in the handshake. Both SDKs keep them in a private
 * field with no getter, so read it defensively: a missing value only loses a default.
 */
export function serverInfoOf(server: McpServerLike): ClientInfo | undefined {
  const info = (server.server as unknown as { _serverInfo?: unknown })._serverInfo;
  return typeof info === 'object' && info !== null ? (info as ClientInfo) : undefined;
}
