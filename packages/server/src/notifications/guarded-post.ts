import http from 'node:http';
import https from 'node:https';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import type { ChannelResult } from './notification-port.js';

/** Connect and answer timeouts, and how much of an answer is read (the rest is dropped). */
const TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 64 * 1024;
/** What of an answer's body a failed attempt keeps for the delivery log. */
const ERROR_BODY_CHARS = 200;

export interface GuardedPoster {
  /**
   * POSTs `body` as JSON to `url`. Never follows a redirect (a 3xx is a failure), never throws:
   * a refused address, a timeout or a network error is a failed result. A 410 is `gone`.
   */
  postJson(url: string, body: string, headers?: Record<string, string>): Promise<ChannelResult>;
  close(): void;
}

/**
 * The one HTTP client of every destination (webhooks, Slack). Unless `allowPrivate`, the agents
 * of request-filtering-agent refuse a connection to a private, loopback, link-local or metadata
 * address, checked on the address the connection goes to (after DNS), so a name that resolves
 * to one, or starts to, is refused too. node:http rather than fetch: the agent cannot be given
 * to the built-in fetch.
 */
export function createGuardedPoster({
  allowPrivate,
  timeoutMs = TIMEOUT_MS,
}: {
  allowPrivate: boolean;
  timeoutMs?: number;
}): GuardedPoster {
  const options = {
    keepAlive: true,
    allowPrivateIPAddress: allowPrivate,
    allowMetaIPAddress: false,
  };
  const agents = {
    'http:': new RequestFilteringHttpAgent(options),
    'https:': new RequestFilteringHttpsAgent(options),
  };
  return {
    postJson(url, body, headers = {}) {
      return new Promise<ChannelResult>((resolve) => {
        let target: URL;
        try {
          target = new URL(url);
        } catch {
          resolve({ ok: false, error: 'the destination URL is not valid' });
          return;
        }
        const agent = target.protocol === 'https:' ? agents['https:'] : agents['http:'];
        const send = target.protocol === 'https:' ? https.request : http.request;
        const request = send(target, {
          method: 'POST',
          agent,
          timeout: timeoutMs,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'user-agent': 'Debrief-Webhooks/1',
            ...headers,
          },
        });
        const deadline = setTimeout(
          () => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)),
          timeoutMs,
        );
        request.on('timeout', () =>
          request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)),
        );
        request.on('error', (error) => {
          clearTimeout(deadline);
          resolve({ ok: false, error: error.message });
        });
        request.on('response', (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            if (size < MAX_RESPONSE_BYTES) chunks.push(chunk);
            size += chunk.length;
            if (size > MAX_RESPONSE_BYTES) response.destroy();
          });
          const finish = () => {
            clearTimeout(deadline);
            resolve(resultOf(response, Buffer.concat(chunks).toString('utf8')));
          };
          response.on('end', finish);
          response.on('close', finish);
          response.on('error', finish);
        });
        request.end(body);
      });
    },
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

function resultOf(response: http.IncomingMessage, text: string): ChannelResult {
  const status = response.statusCode ?? 0;
  if (status >= 200 && status < 300) return { ok: true, status };
  const retryAfterMs = parseRetryAfter(response.headers['retry-after']);
  const answer = text.trim().slice(0, ERROR_BODY_CHARS);
  const error =
    status >= 300 && status < 400
      ? `answered ${status} (a redirect, which is not followed: use the final URL)`
      : `answered ${status}${answer ? `: ${answer}` : ''}`;
  return {
    ok: false,
    status,
    error,
    ...(status === 410 ? { gone: true } : {}),
    ...(retryAfterMs !== null ? { retryAfterMs } : {}),
  };
}

/** `Retry-After`: seconds, or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
