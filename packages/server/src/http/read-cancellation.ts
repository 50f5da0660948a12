import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { cancellableReads, ReadCancel } from '../db/read-cancel.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The context a route hands its services. For a GET, the app's with `db` a view whose report
     * reads stop when the client goes away (db/read-cancel.ts); for other methods, the app's.
     */
    ctx: AppContext;
  }
}

/**
 * Gives every GET request its own `request.ctx`, whose database view tags each statement with a
 * ReadCancel that fires when the client goes away before the answer is sent, so the report
 * reads it started are stopped instead of running on for seconds. GET only: reads are what can
 * run long, and POST /v1/reports stays free of the extra work. Handlers receive this context
 * and no other (`registerRoute` in http/route-contract.ts, which every GET route goes through).
 */
export function registerReadCancellation(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('ctx', null as unknown as AppContext);
  app.addHook('onRequest', (request, reply, done) => {
    if (request.method !== 'GET') {
      request.ctx = ctx;
      done();
      return;
    }
    const cancel = new ReadCancel();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) cancel.cancel();
    });
    request.ctx = { ...ctx, db: cancellableReads(ctx.db, cancel) };
    done();
  });
}
