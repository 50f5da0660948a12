import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A 127.0.0.1 port with nothing listening: connecting to it is refused at once. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await listen(server);
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** What the proxy does with one request before the script runs out. */
export type Step =
  | { status: number; headers?: Record<string, string>; body?: unknown }
  | 'reset'
  | 'hang';

export interface ScriptedProxy {
  url: string;
  /** Requests received so far, scripted and proxied. */
  readonly requests: number;
  close(): Promise<void>;
}

/**
 * A real HTTP server in front of a real Debrief: it plays the scripted steps (errors, resets,
 * a hang) for the first requests, then forwards the rest. It lets tests see retries happen.
 */
export async function startScriptedProxy(target: string, script: Step[]): Promise<ScriptedProxy> {
  let requests = 0;
  const steps = [...script];
  const server = createServer(async (req, res) => {
    requests += 1;
    const body = await readBody(req);
    const step = steps.shift();
    if (step === 'hang') return;
    if (step === 'reset') {
      req.socket.destroy();
      return;
    }
    if (step) {
      res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
      res.end(step.body === undefined ? '' : JSON.stringify(step.body));
      return;
    }
    const upstream = await fetch(`${target}${req.url}`, {
      method: req.method,
      headers: {
        ...(req.headers['content-type'] ? { 'content-type': req.headers['content-type'] } : {}),
        ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
      },
      body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
    });
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'retry-after']) {
      const value = upstream.headers.get(name);
      if (value) headers[name] = value;
    }
    res.writeHead(upstream.status, headers);
    res.end(await upstream.text());
  });
  await listen(server);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    close: () => closeServer(server),
  };
}

export function listen(server: Server): Promise<void> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
}

/** Closes a server even with requests still hanging on it. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
