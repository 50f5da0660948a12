import { createServer } from 'node:net';

/**
 * A port that was free a moment ago on 127.0.0.1, so a URL (PUBLIC_URL) can name it before the
 * server starts; PORT=0 would only tell after listening.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
