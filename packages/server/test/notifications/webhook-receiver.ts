import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  /** The request's path. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
}

/** What the receiver answers a request with; `hang`: never answers (a timeout). */
export type Answer = {
  status: number;
  headers?: Record<string, string>;
  hang?: boolean;
  /** Answers after this long. */
  delayMs?: number;
};

/**
 * A real webhook receiver on 127.0.0.1: records every request and answers with `answer`
 * (200 by default), which a test may change at any time.
 */
export async function startReceiver(): Promise<{
  url: string;
  received: ReceivedWebhook[];
  answer: (request: ReceivedWebhook, index: number) => Answer;
  setAnswer(answer: (request: ReceivedWebhook, index: number) => Answer): void;
  waitFor(predicate: (received: ReceivedWebhook[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}> {
  const received: ReceivedWebhook[] = [];
  let answer = (_request: ReceivedWebhook, _index: number): Answer => ({ status: 200 });
  const hanging = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {}
      const entry = { path: request.url ?? '', headers: request.headers, body, json };
      received.push(entry);
      const reply = answer(entry, received.length - 1);
      if (reply.hang) {
        hanging.add(response);
        return;
      }
      setTimeout(() => {
        response.writeHead(reply.status, reply.headers ?? {});
        response.end('ok');
      }, reply.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    get answer() {
      return answer;
    },
    setAnswer(next) {
      answer = next;
    },
    async waitFor(predicate, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > until) {
          throw new Error(
            `the receiver did not get what was expected; it got ${received.length} requests`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Verifies a request as a receiver would, with the standardwebhooks package; throws if forged. */
export function verify(secret: string, request: ReceivedWebhook): unknown {
  return new Webhook(secret).verify(request.body, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  });
}
