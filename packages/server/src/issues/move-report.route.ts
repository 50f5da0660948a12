import { MoveReportBody } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { parseBody } from '../http/body.js';
import { requireTriage } from '../keys/require-triage.js';
import { moveReport } from './triage.service.js';

/** Moves a report into another issue or a new one, and the grouping remembers (issue 18). */
export function registerMoveReport(app: FastifyInstance, ctx: AppContext): void {
  app.post<{ Params: { projectId: string; reportId: string } }>(
    '/v1/dashboard/:projectId/reports/:reportId/move',
    {
      preHandler: requireTriage(ctx),
      handler: async (request) => {
        const body = parseBody(MoveReportBody, request.body);
        const { projectId, reportId } = request.params;
        return moveReport(ctx, request.accountId, projectId, reportId, body);
      },
    },
  );
}
