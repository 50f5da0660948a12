import { problem } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import { sendProblem } from '../errors/error-handler.js';

/** What /readyz's `Retry-After` says: about a readiness probe's period. */
const READY_RETRY_AFTER_SECONDS = 5;

export function registerHealth(app: FastifyInstance, ctx: AppContext): void {
  /** Liveness: the process answers. */
  app.get('/healthz', async () => ({ ok: true }));

  /**
   * Readiness: the database answers, reports can be stored, and the SQLite file is still the
   * one opened. Not ready during a PostgreSQL outage, while writes fail (disk full, read-only,
   * I/O error) and after the database file was moved away; ready again once the cause is gone.
   */
  app.get('/readyz', async (request, reply) => {
    const unavailable = (detail: string) =>
      sendProblem(reply, problem(ctx.config.publicUrl, 'service_unavailable', detail), {
        'Retry-After': String(READY_RETRY_AFTER_SECONDS),
      });
    try {
      await sql`select 1`.execute(ctx.db);
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed');
      return unavailable(
        'The database does not answer; reports cannot be stored right now. Retry shortly.',
      );
    }
    // The causes name a file path: logged for the operator, not told to the caller.
    const fileProblem = ctx.database.fileProblem();
    if (fileProblem) {
      request.log.warn({ cause: fileProblem }, 'readiness check failed');
      return unavailable(
        'The database file is no longer where this server opened it; the operator has to restore it. Retry later.',
      );
    }
    const writerProblem = ctx.reportWriter.unavailable();
    if (writerProblem) {
      request.log.warn({ cause: writerProblem }, 'readiness check failed');
      return unavailable(
        'The report writer cannot write to the database; reports cannot be stored right now. Retry shortly.',
      );
    }
    return { ok: true, database: ctx.database.dialect };
  });
}
