import type { FastifyInstance } from 'fastify';
import type { ReadScope } from '../db/read-scope.js';

/**
 * Gives every GET request an AbortSignal that fires when the client goes away before the
 * answer is sent, and runs the request inside the database's read scope (db/read-scope.ts), so
 * the report reads it starts are stopped with it instead of running on for seconds (issue 17:
 * the server kept working 5–6 s after abandoned requests). GET only: reads are what can run
 * long, and POST /v1/reports stays free of the extra work.
 *
 * A callback hook calling `done` inside `scope.run`: the rest of the request (hooks, handler)
 * continues from there and keeps the scope; a GET has no body whose stream events would run
 * outside it. A small hand-written hook rather than @fastify/request-context: one value, and the
 * database layer must not depend on a Fastify plugin's global store.
 */
export function registerReadCancellation(app: FastifyInstance, scope: ReadScope): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (request.method !== 'GET') {
      done();
      return;
    }
    const controller = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) controller.abort();
    });
    scope.run(controller.signal, done);
  });
}
