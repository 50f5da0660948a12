import Fastify from 'fastify';
import {
  DummyDriver,
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AppContext } from '../../src/context.js';
import { readCancelOf } from '../../src/db/read-cancel.js';
import type { DB } from '../../src/db/schema.js';
import { registerErrorHandling } from '../../src/errors/error-handler.js';
import { registerReadCancellation } from '../../src/http/read-cancellation.js';
import { registerRoute, registerRouteContracts } from '../../src/http/route-contract.js';

function appContext(): AppContext {
  const db = new Kysely<DB>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new SqliteIntrospector(k),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
  return { db } as unknown as AppContext;
}

function appWithContracts(ctx: AppContext) {
  const app = Fastify();
  registerErrorHandling(app, 'http://debrief.example.test');
  registerReadCancellation(app, ctx);
  registerRouteContracts(app);
  return app;
}

describe('routes registered with their contract', () => {
  it('a GET handler reads through the request context, whose reads are cancellable', async () => {
    const ctx = appContext();
    const app = appWithContracts(ctx);
    registerRoute(app, ctx, {
      contract: { method: 'GET', url: '/read' },
      handler: ({ ctx: given }) => ({
        cancellable: readCancelOf(given.db) !== undefined,
        appDb: given.db === ctx.db,
      }),
    });
    registerRoute(app, ctx, {
      contract: { method: 'POST', url: '/write' },
      handler: ({ ctx: given }) => ({ appDb: given.db === ctx.db }),
    });
    expect((await app.inject({ url: '/read' })).json()).toEqual({
      cancellable: true,
      appDb: false,
    });
    expect((await app.inject({ method: 'POST', url: '/write' })).json()).toEqual({ appDb: true });
    expect(app.routeContracts.map((c) => c.url)).toEqual(['/read', '/write']);
  });

  it('refuses at start a GET route registered without its contract', () => {
    const app = appWithContracts(appContext());
    expect(() => app.get('/raw', async () => 'read')).toThrow(/registerRoute/);
  });

  it('parses the query after auth, with the one problem shape', async () => {
    const ctx = appContext();
    const app = appWithContracts(ctx);
    registerRoute(app, ctx, {
      contract: { method: 'GET', url: '/q', query: z.object({ n: z.string() }) },
      auth: () => async (request) => {
        if (request.headers.authorization === undefined) throw new Error('no credentials');
      },
      handler: ({ query }) => query,
    });
    expect((await app.inject({ url: '/q?bogus=1' })).statusCode).toBe(500);
    const refused = await app.inject({ url: '/q?bogus=1', headers: { authorization: 'x' } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().code).toBe('invalid_query');
    const ok = await app.inject({ url: '/q?n=2', headers: { authorization: 'x' } });
    expect(ok.json()).toEqual({ n: '2' });
  });
});
