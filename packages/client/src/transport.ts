import { type ClientProblem, clientProblem } from './client-error.js';

export type FetchLike = typeof fetch;

/** One HTTP exchange: a response with its parsed body, or a failure before any response. */
export type Exchange =
  | { kind: 'response'; status: number; headers: Headers; body: unknown }
  | { kind: 'failed'; problem: ClientProblem };

export interface ExchangeOptions {
  fetch: FetchLike;
  url: string;
  init: RequestInit;
  timeoutMs: number;
}

/**
 * Sends one request and reads the whole body within `timeoutMs`. The timer covers the body
 * too: a server that sends headers and then stalls must not hang the caller.
 */
export async function exchange(options: ExchangeOptions): Promise<Exchange> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(
    () => {
      timedOut = true;
      controller.abort();
    },
    Math.max(1, options.timeoutMs),
  );
  try {
    const response = await options.fetch(options.url, {
      ...options.init,
      signal: controller.signal,
    });
    const text = await response.text();
    return {
      kind: 'response',
      status: response.status,
      headers: response.headers,
      body: parse(text),
    };
  } catch (error) {
    if (timedOut) {
      return {
        kind: 'failed',
        problem: clientProblem(
          'timeout',
          `No complete answer from ${origin(options.url)} within ${options.timeoutMs} ms; nothing is known to have been stored.`,
        ),
      };
    }
    return {
      kind: 'failed',
      problem: clientProblem(
        'network_error',
        `Could not reach ${origin(options.url)} (${describeCause(error)}). Check the base URL and that Debrief is running.`,
      ),
    };
  } finally {
    clearTimeout(timer);
  }
}

function parse(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function origin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** Node's fetch hides the useful part (ECONNREFUSED, ENOTFOUND) in `error.cause`. */
function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as Error & { cause?: unknown }).cause;
  if (cause && typeof cause === 'object') {
    const code = (cause as { code?: unknown }).code;
    const message = (cause as { message?: unknown }).message;
    if (typeof code === 'string') return code;
    if (typeof message === 'string') return message;
  }
  return error.message;
}
