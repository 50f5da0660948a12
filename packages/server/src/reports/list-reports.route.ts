import { ListReportsQuery } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { parseQuery } from '../http/query.js';
import { requireReader } from '../keys/require-reader.js';
import { listReports } from './report.service.js';

export function registerListReports(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: { projectId: string } }>('/v1/dashboard/:projectId/reports', {
    preHandler: requireReader(ctx),
    handler: async (request) => {
      const query = parseQuery(ListReportsQuery, request.query);
      return listReports(request.ctx, request.accountId, request.params.projectId, query);
    },
  });
}
