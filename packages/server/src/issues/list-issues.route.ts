import { ListIssuesQuery } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { parseQuery } from '../http/query.js';
import { requireReader } from '../keys/require-reader.js';
import { listIssues } from './issue-read.service.js';

/** A project's issues (issue 18): open ones by default, most recently seen first. */
export function registerListIssues(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: { projectId: string } }>('/v1/dashboard/:projectId/issues', {
    preHandler: requireReader(ctx),
    handler: async (request) => {
      const query = parseQuery(ListIssuesQuery, request.query);
      return listIssues(request.ctx, request.accountId, request.params.projectId, query);
    },
  });
}
