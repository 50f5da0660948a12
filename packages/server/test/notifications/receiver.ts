import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChannelResult } from '../../src/notifications/notification-port.js';

/** A real HTTP receiver on 127.0.0.1 that records every request and answers `status`. */
export interface Receiver {
  url: string;
  requests: { headers: Record<string, string | string[] | undefined>; body: string }[];
  status: number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const receiver = {
    url: '',
    requests: [] as Receiver['requests'],
    status: 200,
    close: async () => {},
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.requests.push({
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(receiver.status, { 'content-type': 'text/plain' });
      response.end(receiver.status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return receiver;
}

/** A plain fetch-based poster, standing in for the deliverer's guarded one. */
export const fetchPoster = { postJson: fetchPost };

async function fetchPost(url: string, body: string): Promise<ChannelResult> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      redirect: 'manual',
    });
    await response.text();
    return response.ok
      ? { ok: true, status: response.status }
      : { ok: false, status: response.status, gone: response.status === 410 };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}
