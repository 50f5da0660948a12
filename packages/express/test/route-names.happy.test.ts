import type { AddressInfo } from 'node:net';
import { feedbackRouter } from '@debrief/express';
import { describe, expect, it } from 'vitest';
import { startReceiver } from '../../client/test/recording-receiver.js';
import { EXPRESS_VERSIONS } from './host-app.js';

const KEY = `wk_${'a'.repeat(32)}`;

describe.each(EXPRESS_VERSIONS)('route names in the counts, %s', (_v, express) => {
  it('names a request by the route it matched, sub-routers and misses included', async () => {
    const receiver = await startReceiver();
    const app = express();
    const feedback = feedbackRouter({ ingestKey: KEY, baseUrl: receiver.url });
    app.use(feedback);
    const api = express.Router();
    api.get('/items/:id', (req, res) => {
      res.json({ id: req.params.id });
    });
    app.use('/api', api);
    const server = await new Promise<import('node:http').Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (const path of ['/api/items/1', '/api/items/2?x=1', '/nowhere'])
        await fetch(`${url}${path}`).then((r) => r.text());
      await feedback.close();
      // Summed over windows: the requests may straddle a minute.
      const tools: Record<string, { calls: number; errors: number }> = {};
      for (const { body } of receiver.to('/v1/usage')) {
        for (const [name, usage] of Object.entries(body.tools) as Array<[string, any]>) {
          tools[name] ??= { calls: 0, errors: 0 };
          tools[name].calls += usage.calls;
          tools[name].errors += usage.errors;
        }
      }
      expect(tools).toEqual({
        'GET /api/items/:id': { calls: 2, errors: 0 },
        'GET (no route)': { calls: 1, errors: 0 },
      });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await receiver.close();
    }
  });
});
