import Fastify from 'fastify';
import { type Kysely, sql } from 'kysely';
import type { AppContext } from '../../src/context.js';
import type { DB } from '../../src/db/schema.js';
import { registerErrorHandling } from '../../src/errors/error-handler.js';
import { registerReadCancellation } from '../../src/http/read-cancellation.js';

/**
 * A read of the report table that runs for minutes unless stopped: on SQLite a counted
 * recursive sequence (a core busy, as a heavy date-range count is), on PostgreSQL pg_sleep
 * (the server stops it the same way, without taking a core of the shared test machine). The
 * empty join with `reports` makes it a report read, routed as the API's reads are.
 */
export function slowReportRead(db: Kysely<DB>, dialect: 'sqlite' | 'postgres') {
  const source =
    dialect === 'sqlite'
      ? sql`(with recursive c(x) as (select 1 union all select x + 1 from c where x < 2000000000) select x from c)`
      : sql`(select pg_sleep(120) as x)`;
  return db
    .selectFrom(source.as('c'))
    .leftJoin('reports', (join) => join.on(sql<boolean>`1 = 0`))
    .select(sql<number | string>`count(*)`.as('n'));
}

/**
 * A test-only HTTP server on 127.0.0.1 beside the test server, sharing its context (database,
 * reader pool, writer), with the app's read-cancellation hook and error handler: `GET /` runs
 * `slowReportRead` as a route's read runs. (The app itself takes no test routes.)
 */
export async function startSlowReadServer(ctx: AppContext) {
  const app = Fastify();
  registerErrorHandling(app, ctx.config.publicUrl);
  registerReadCancellation(app, ctx);
  app.get('/', async (request) => {
    const row = await slowReportRead(request.ctx.db, ctx.database.dialect).executeTakeFirst();
    return { n: Number(row?.n) };
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, close: () => app.close() };
}

/** Whether a process still exists (signal 0 checks without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `check` every 25 ms until it holds, for at most `ms`; returns whether it did. */
export async function eventually(check: () => boolean | Promise<boolean>, ms: number) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}
