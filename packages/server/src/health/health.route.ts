import { problem } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import { sendProblem } from '../errors/error-handler.js';

export function registerHealth(app: FastifyInstance, ctx: AppContext): void {
  /** Liveness: the process answers. */
  app.get('/healthz', async () => ({ ok: true }));

  /** Readiness: the database answers too. */
  app.get('/readyz', async (request, reply) => {
    try {
      await sql`select 1`.execute(ctx.db);
      return { ok: true, database: ctx.database.dialect };
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed');
      return sendProblem(
        reply,
        problem(
          ctx.config.publicUrl,
          'service_unavailable',
          'The database does not answer; reports cannot be stored right now. Retry shortly.',
        ),
      );
    }
  });
}
