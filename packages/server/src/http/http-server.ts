import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { type ErrorCode, PROBLEM_CONTENT_TYPE, problem } from '@debrief/protocol';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyBaseLogger } from 'fastify';
import type { HttpLimits } from '../config.js';

/**
 * The HTTP server under Fastify, with the limits an outsider must not be able to exhaust:
 * request, header and keep-alive timeouts, a cap on requests per
 * connection and on open connections per client address. Every answer Node or Fastify would
 * give by itself here (400, 408, 431, a 503 while closing) is problem details, like every other
 * error. Built through Fastify's `serverFactory`, so the checks sit in front of Fastify's
 * handler at the cost of one property read per request, not in a hook on the hot path.
 */

/** Seconds a client should wait before retrying after a shutdown 503: a restart's length. */
export const CLOSING_RETRY_AFTER_S = 5;
/** Seconds a client over the connection cap should wait: long enough for its others to end. */
export const CONNECTION_CAP_RETRY_AFTER_S = 1;
/** A connection over the cap that sends no request is closed after this long, not headersTimeout. */
const OVER_CAP_IDLE_MS = 2_000;

const OVER_CAP = Symbol('debrief.overConnectionCap');
const REQUESTS = Symbol('debrief.requestsOnConnection');
const ANSWERED = Symbol('debrief.clientErrorAnswered');

interface TrackedSocket extends Socket {
  [OVER_CAP]?: boolean;
  [REQUESTS]?: number;
  [ANSWERED]?: boolean;
}

export interface HttpGuardOptions {
  limits: HttpLimits;
  publicUrl: string;
  /** Fastify's TRUST_PROXY setting: connections from a trusted proxy are not capped. */
  trustProxy: boolean | number | string;
  log: FastifyBaseLogger;
}

export interface HttpGuard {
  /** Fastify's `serverFactory`. */
  serverFactory(handler: (req: IncomingMessage, res: ServerResponse) => void): Server;
  /** Fastify's `clientErrorHandler`: errors Node's parser meets before Fastify sees a request. */
  clientErrorHandler(error: Error & { code?: string }, socket: Socket): void;
  /** From now on, every new request is answered 503 with `Retry-After` (graceful shutdown). */
  markClosing(): void;
}

/** Whether the peer of a connection is a proxy TRUST_PROXY trusts (its clients are many). */
function trustedPeer(trustProxy: boolean | number | string): (address: string) => boolean {
  if (trustProxy === true) return () => true;
  if (typeof trustProxy === 'number') return () => trustProxy > 0;
  if (trustProxy === false || trustProxy === '') return () => false;
  const trust = proxyAddr.compile(trustProxy.split(',').map((part) => part.trim()));
  return (address) => trust(address, 0);
}

function problemBody(publicUrl: string, code: ErrorCode, detail: string): string {
  return JSON.stringify(problem(publicUrl, code, detail));
}

/** Answers on a Node response, before Fastify: used for the cap and for shutdown. */
function answer(
  res: ServerResponse,
  body: string,
  status: number,
  retryAfterSeconds: number,
): void {
  res.writeHead(status, {
    'content-type': PROBLEM_CONTENT_TYPE,
    'content-length': Buffer.byteLength(body),
    'retry-after': String(retryAfterSeconds),
    connection: 'close',
  });
  res.end(body);
}

/** How each error of Node's HTTP parser is answered (Node's own answers are bare). */
function clientProblem(
  error: Error & { code?: string },
  limits: HttpLimits,
): { code: ErrorCode; status: number; reason: string; detail: string } {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      code: 'request_timeout',
      status: 408,
      reason: 'Request Timeout',
      detail: `The request did not arrive in time (headers within ${limits.headersTimeoutMs / 1000} s, the whole request within ${limits.requestTimeoutMs / 1000} s), so the connection is closed. Send the whole request at once and retry.`,
    };
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return {
      code: 'headers_too_large',
      status: 431,
      reason: 'Request Header Fields Too Large',
      detail:
        'The request line and headers are larger than 16 KiB. Send fewer or shorter headers and cookies; the report goes in the JSON body.',
    };
  }
  return {
    code: 'bad_request',
    status: 400,
    reason: 'Bad Request',
    detail: `The request is not valid HTTP/1.1 (${error.code ?? 'parse error'}). Send a well-formed request.`,
  };
}

export function createHttpGuard(options: HttpGuardOptions): HttpGuard {
  const { limits, publicUrl, log } = options;
  const isTrusted = trustedPeer(options.trustProxy);
  const open = new Map<string, number>();
  let closing = false;
  const closingBody = problemBody(
    publicUrl,
    'service_unavailable',
    `This server is shutting down and takes no new requests. Retry in ${CLOSING_RETRY_AFTER_S} seconds; nothing was stored.`,
  );
  const capBody = problemBody(
    publicUrl,
    'rate_limited',
    `More than ${limits.maxConnectionsPerAddress} connections are open from your address, so this one is refused and closed; nothing was stored. Reuse a connection (keep-alive) or wait ${CONNECTION_CAP_RETRY_AFTER_S} s. Operators: behind a reverse proxy, set TRUST_PROXY so its connections are not capped.`,
  );
  const warned = new Set<string>();

  function track(socket: TrackedSocket): void {
    const address = socket.remoteAddress;
    if (!address || isTrusted(address)) return;
    const count = (open.get(address) ?? 0) + 1;
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
    if (count <= limits.maxConnectionsPerAddress) return;
    // Over the cap: its first request is answered 429 and the connection closed. One that
    // sends nothing is dropped soon, so held-open sockets cannot pile up to the fd limit.
    socket[OVER_CAP] = true;
    socket.setTimeout(OVER_CAP_IDLE_MS);
    if (!warned.has(address)) {
      warned.add(address);
      setTimeout(() => warned.delete(address), 60_000).unref();
      log.warn(
        { address, limit: limits.maxConnectionsPerAddress },
        'connection cap reached for an address (MAX_CONNECTIONS_PER_ADDRESS; behind a proxy, set TRUST_PROXY)',
      );
    }
  }

  return {
    serverFactory(handler) {
      const timeouts = [limits.requestTimeoutMs, limits.headersTimeoutMs].filter((ms) => ms > 0);
      const server = createServer(
        {
          requestTimeout: limits.requestTimeoutMs,
          headersTimeout: limits.headersTimeoutMs,
          keepAliveTimeout: limits.keepAliveTimeoutMs,
          // Node checks the two timeouts every 30 s by default, so a 30 s timeout would fire
          // after up to 60 s: check often enough that they hold to within a second.
          connectionsCheckingInterval: Math.max(
            50,
            Math.min(1_000, ...timeouts.map((ms) => ms / 4)),
          ),
        },
        (req, res) => {
          const socket = req.socket as TrackedSocket;
          if (closing) return answer(res, closingBody, 503, CLOSING_RETRY_AFTER_S);
          if (socket[OVER_CAP]) return answer(res, capBody, 429, CONNECTION_CAP_RETRY_AFTER_S);
          if (limits.maxRequestsPerConnection > 0) {
            // Node's own maxRequestsPerSocket answers a bare 503 past the limit; ending the
            // connection with its last allowed request asks the client to open a new one.
            const served = (socket[REQUESTS] ?? 0) + 1;
            socket[REQUESTS] = served;
            if (served >= limits.maxRequestsPerConnection) res.setHeader('connection', 'close');
          }
          handler(req, res);
        },
      );
      if (limits.maxConnectionsPerAddress > 0) server.on('connection', track);
      return server;
    },

    clientErrorHandler(error, socket) {
      // A reset peer, or a response already under way: nothing can be answered.
      const tracked = socket as TrackedSocket & { _httpMessage?: ServerResponse };
      if (tracked[ANSWERED]) return; // Node's parser reports again on the data that follows
      tracked[ANSWERED] = true;
      if (error.code === 'ECONNRESET' || socket.destroyed || tracked._httpMessage?.headersSent) {
        socket.destroy();
        return;
      }
      const { code, status, reason, detail } = clientProblem(error, limits);
      log.debug({ code: error.code }, 'client error');
      if (socket.writable) {
        const body = problemBody(publicUrl, code, detail);
        socket.write(
          `HTTP/1.1 ${status} ${reason}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      }
      // end() lets the answer reach the client before the connection closes; destroy() could
      // reset it while unread request bytes are still in the kernel's buffer.
      socket.end();
      socket.setTimeout(1_000, () => socket.destroy());
    },

    markClosing() {
      closing = true;
    },
  };
}
