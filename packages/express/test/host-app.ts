import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type FeedbackRouterOptions, feedbackRouter } from '@debrief/express';
import express5 from 'express';
import express4 from 'express4';

export const EXPRESS_VERSIONS = [
  ['Express 5', express5],
  ['Express 4', express4],
] as const;

export type ExpressFactory = typeof express5;

export interface HostApp {
  url: string;
  router: ReturnType<typeof feedbackRouter>;
  close(): Promise<void>;
}

/**
 * A real host app on 127.0.0.1 with routes of its own around the feedback router, so tests
 * can see that the router leaves them alone. `json` mounts express.json() before the router.
 */
export async function startHostApp(
  express: ExpressFactory,
  options: FeedbackRouterOptions & { json: boolean; mount?: string; trustProxy?: boolean },
): Promise<HostApp> {
  const app = express();
  // Behind a proxy, `req.ip` is the agent's address from X-Forwarded-For.
  if (options.trustProxy) app.set('trust proxy', true);
  if (options.json) app.use(express.json());
  app.get('/health', (_req, res) => {
    res.json({ host: 'fine' });
  });
  const router = feedbackRouter(options);
  if (options.mount) app.use(options.mount, router);
  else app.use(router);
  app.get('/feedback', (_req, res) => {
    res.json({ host: 'own GET /feedback' });
  });
  app.get('/users/:id', (req, res) => {
    res.json({ id: req.params.id });
  });
  app.get('/boom', (_req, res) => {
    res.status(500).json({ error: 'database connection lost' });
  });
  app.get('/crash', () => {
    throw new Error('handler crashed');
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    router,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export async function post(
  url: string,
  body: string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
) {
  const response = await fetch(url, { method: 'POST', headers, body });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, headers: response.headers, body: json };
}
