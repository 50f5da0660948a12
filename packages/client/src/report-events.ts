import { Report } from '@debrief/protocol';
import { clientProblem, DebriefError } from './client-error.js';
import { toProblem } from './request.js';
import { SseParser } from './sse-parser.js';
import type { FetchLike } from './transport.js';

export interface EventsOptions {
  /** Resume after this report id: the server replays what was missed. */
  lastEventId?: string;
  /** Ends the iteration (without an error) when aborted. */
  signal?: AbortSignal;
  /** Reconnect, resuming from the last report seen, when the stream drops. Default true. */
  reconnect?: boolean;
}

export interface EventStreamConfig {
  fetch: FetchLike;
  url: string;
  apiKey: string;
  connectTimeoutMs: number;
}

const DEFAULT_RETRY_MS = 2_000;
const MAX_RECONNECT_DELAY_MS = 30_000;

/**
 * The live stream of a project's new reports. The first connection's failure is thrown (a
 * wrong key or URL should be loud); later drops reconnect with `Last-Event-ID`, like
 * EventSource, so no report is missed. A 4xx on reconnect (key revoked) is thrown.
 */
export async function* streamReports(
  config: EventStreamConfig,
  options: EventsOptions = {},
): AsyncGenerator<Report, void, undefined> {
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) return;
  const parser = new SseParser(options.lastEventId);
  let connected = false;
  let failures = 0;
  try {
    while (!controller.signal.aborted) {
      let body: ReadableStream<Uint8Array>;
      try {
        body = await connect(config, parser.lastEventId, controller.signal);
        connected = true;
        failures = 0;
      } catch (error) {
        if (controller.signal.aborted) return;
        // After the first connection, only a 4xx (key revoked, project gone) is final: network
        // errors and 5xx (a proxy while Debrief restarts) are what reconnecting is for.
        const status = error instanceof DebriefError ? error.status : 0;
        if (!connected || (status >= 400 && status < 500)) throw error;
        failures += 1;
        await pause(reconnectDelay(parser, failures), controller.signal);
        continue;
      }
      const reader = body.getReader();
      const decoder = new TextDecoder();
      parser.discardPending(); // half an event from a dropped connection is not an event
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          for (const event of parser.push(decoder.decode(value, { stream: true }))) {
            // `ready` and any future event types are not reports; heartbeats are comments.
            if (event.event !== 'report') continue;
            const report = Report.safeParse(safeJson(event.data));
            if (report.success) yield report.data;
          }
        }
      } catch {
        // The connection dropped mid-stream; fall through to reconnect.
      } finally {
        reader.releaseLock();
      }
      if (controller.signal.aborted || options.reconnect === false) return;
      await pause(reconnectDelay(parser, 1), controller.signal);
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    // Also runs when the consumer breaks out of `for await`: close the connection.
    controller.abort();
  }
}

async function connect(
  config: EventStreamConfig,
  lastEventId: string | undefined,
  stop: AbortSignal,
): Promise<ReadableStream<Uint8Array>> {
  // A timeout signal of its own, so that a connect timeout is not mistaken for the caller
  // stopping; AbortSignal.any holds its sources weakly, so reconnects do not pile up listeners.
  const timeout = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    timeout.abort();
  }, config.connectTimeoutMs);
  try {
    const response = await config.fetch(config.url, {
      headers: {
        authorization: `Bearer ${config.apiKey}`,
        accept: 'text/event-stream',
        ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
      },
      signal: AbortSignal.any([stop, timeout.signal]),
    });
    if (!response.ok || !response.body) {
      const text = await response.text();
      throw new DebriefError(toProblem(response.status, safeJson(text)));
    }
    return response.body;
  } catch (error) {
    if (error instanceof DebriefError) throw error;
    if (timedOut) {
      throw new DebriefError(
        clientProblem(
          'timeout',
          `The event stream did not open within ${config.connectTimeoutMs} ms.`,
        ),
      );
    }
    throw new DebriefError(
      clientProblem('network_error', `Could not open the event stream: ${String(error)}`),
    );
  } finally {
    clearTimeout(timer);
  }
}

function reconnectDelay(parser: SseParser, failures: number): number {
  const base = parser.retryMs ?? DEFAULT_RETRY_MS;
  return Math.min(MAX_RECONNECT_DELAY_MS, base * 2 ** (failures - 1));
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

function safeJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return text;
  }
}
