import { problem } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import { sendProblem } from '../errors/error-handler.js';

export function registerHealth(app: FastifyInstance, ctx: AppContext): void {
  /** Liveness: the process answers. */
  app.get('/healthz', async () => ({ ok: true }));

  /** Readiness: the database answers, and reports can be stored. */
  app.get('/readyz', async (request, reply) => {
    const unavailable = (detail: string) =>
      sendProblem(reply, problem(ctx.config.publicUrl, 'service_unavailable', detail));
    try {
      await sql`select 1`.execute(ctx.db);
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed');
      return unavailable(
        'The database does not answer; reports cannot be stored right now. Retry shortly.',
      );
    }
    const writerProblem = ctx.reportWriter.unavailable();
    if (writerProblem) {
      // The cause names a file path: logged for the operator, not told to the caller.
      request.log.warn({ cause: writerProblem }, 'readiness check failed');
      return unavailable(
        'The report writer cannot open the database; reports cannot be stored right now. Retry shortly.',
      );
    }
    return { ok: true, database: ctx.database.dialect };
  });
}
