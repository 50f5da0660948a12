import type { ProblemDetails } from '@debrief/protocol';
import { clientProblem, type DebriefProblem } from './client-error.js';
import {
  backoffDelay,
  fitsBefore,
  isRetryableStatus,
  parseRetryAfter,
  type RetryBounds,
  sleep,
} from './retry-policy.js';
import { exchange, type FetchLike } from './transport.js';

export type RequestResult =
  | { ok: true; status: number; body: unknown; attempts: number }
  | { ok: false; problem: DebriefProblem; attempts: number; retryAfterSeconds?: number };

export interface RequestOptions extends RetryBounds {
  fetch: FetchLike;
  url: string;
  init: RequestInit;
}

/**
 * Accepts any well-formed problem, including codes newer than this client knows: a newer
 * server must not turn its own clear errors into `invalid_response` here. (A hand check, not
 * the strict zod schema, for that reason.)
 */
function isProblem(body: unknown): body is ProblemDetails {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  return (
    b.ok === false &&
    typeof b.status === 'number' &&
    typeof b.code === 'string' &&
    typeof b.title === 'string' &&
    typeof b.detail === 'string'
  );
}

/**
 * Sends a request, retrying network errors and 5xx with backoff, and a 429 only when its
 * Retry-After fits before the deadline. Other 4xx are final: repeating them cannot help.
 */
export async function request(options: RequestOptions): Promise<RequestResult> {
  let attempts = 0;
  for (;;) {
    attempts += 1;
    const remaining = options.deadline - Date.now();
    const result = await exchange({ ...options, timeoutMs: remaining });
    const retriesLeft = attempts <= options.retries;

    if (result.kind === 'failed') {
      const delay = backoffDelay(attempts - 1);
      if (
        result.problem.code === 'network_error' &&
        retriesLeft &&
        fitsBefore(options.deadline, delay)
      ) {
        await sleep(delay);
        continue;
      }
      return { ok: false, problem: result.problem, attempts };
    }

    const { status, headers, body } = result;
    if (status >= 200 && status < 300) return { ok: true, status, body, attempts };

    const retryAfter = parseRetryAfter(headers.get('retry-after'));
    const problem = toProblem(status, body);
    if (status === 429) {
      if (
        retryAfter !== undefined &&
        retriesLeft &&
        fitsBefore(options.deadline, retryAfter * 1000)
      ) {
        await sleep(retryAfter * 1000);
        continue;
      }
    } else if (isRetryableStatus(status) && retriesLeft) {
      // A 503 may say when to come back; otherwise back off on our own schedule.
      const delay = retryAfter !== undefined ? retryAfter * 1000 : backoffDelay(attempts - 1);
      if (fitsBefore(options.deadline, delay)) {
        await sleep(delay);
        continue;
      }
    }
    return {
      ok: false,
      problem,
      attempts,
      ...(retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}),
    };
  }
}

export function toProblem(status: number, body: unknown): DebriefProblem {
  if (isProblem(body)) return body;
  const preview =
    typeof body === 'string' ? body.slice(0, 120) : JSON.stringify(body)?.slice(0, 120);
  return clientProblem(
    'invalid_response',
    `HTTP ${status} without problem details${preview ? ` (body starts: ${preview})` : ''}. Is the base URL a Debrief server?`,
    status,
  );
}
