import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer, listen } from './local-servers.js';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface Receiver {
  url: string;
  readonly requests: RecordedRequest[];
  /** Requests to one path, in order. */
  to(path: string): RecordedRequest[];
  /** Resolves once `count` requests reached `path`. */
  waitFor(path: string, count: number): Promise<RecordedRequest[]>;
  close(): Promise<void>;
}

type Answer = { status: number; body: unknown };

/**
 * A real HTTP server on 127.0.0.1 that speaks the part of Debrief's ingest API whose server side
 * is built elsewhere (`POST /v1/usage`, the `issue` of the submit answer) and records every
 * request, so tests can read exactly what a client sent. `answer` overrides the reply per path.
 */
export async function startReceiver(
  answer: (path: string, body: any) => Answer | undefined = () => undefined,
): Promise<Receiver> {
  const requests: RecordedRequest[] = [];
  const waiters: Array<() => void> = [];
  let next = 0;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
    for (const wake of waiters.splice(0)) wake();
    next += 1;
    const reply = answer(path, body) ?? defaultAnswer(path, next);
    res.writeHead(reply.status, {
      'content-type': reply.status >= 400 ? 'application/problem+json' : 'application/json',
    });
    res.end(JSON.stringify(reply.body));
  });
  await listen(server);
  const { port } = server.address() as AddressInfo;
  const to = (path: string) => requests.filter((r) => r.path === path);
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    to,
    async waitFor(path, count) {
      while (to(path).length < count) {
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
      return to(path);
    },
    close: () => closeServer(server),
  };
}

function defaultAnswer(path: string, n: number): Answer {
  if (path === '/v1/reports') {
    return { status: 201, body: { ok: true, id: n.toString(16).padStart(32, '0'), redactions: 0 } };
  }
  if (path === '/v1/usage') return { status: 202, body: { ok: true } };
  return {
    status: 404,
    body: {
      ok: false,
      type: 'about:blank',
      title: 'Not found',
      status: 404,
      detail: 'no',
      code: 'not_found',
    },
  };
}
