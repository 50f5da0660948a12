import { problem } from '@debrief/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { HealthResponse, ReadyResponse } from '../agent-resources/openapi-schemas.js';
import type { AppContext } from '../context.js';
import { sendProblem } from '../errors/error-handler.js';
import { registerRoute } from '../http/route-contract.js';

/** What /readyz's `Retry-After` says: about a readiness probe's period. */
const READY_RETRY_AFTER_SECONDS = 5;

export function registerHealth(app: FastifyInstance, ctx: AppContext): void {
  /** Liveness: the process answers. */
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/healthz',
      doc: {
        operationId: 'health',
        tags: ['Health'],
        summary: 'Liveness: the process answers',
        security: [],
        responses: {
          '200': { description: 'Up.', schema: HealthResponse, example: { ok: true } },
        },
        errors: [],
      },
    },
    handler: () => ({ ok: true }),
  });

  /**
   * Readiness: the database answers, reports can be stored, and the SQLite file is still the
   * one opened. Not ready during a PostgreSQL outage, while writes fail (disk full, read-only,
   * I/O error) and after the database file was moved away; ready again once the cause is gone.
   */
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/readyz',
      doc: {
        operationId: 'ready',
        tags: ['Health'],
        summary: 'Readiness: the database answers and reports can be stored',
        security: [],
        responses: {
          '200': {
            description: 'Ready to store reports.',
            schema: ReadyResponse,
            example: { ok: true, database: 'sqlite' },
          },
        },
        errors: ['service_unavailable'],
      },
    },
    handler: ({ request, reply, ctx }) => readiness(ctx, request, reply),
  });
}

async function readiness(ctx: AppContext, request: FastifyRequest, reply: FastifyReply) {
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
}
