import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { parseQuery } from '../http/query.js';
import { requireReader } from '../keys/require-reader.js';
import { getIssue } from './issue-read.service.js';
import { NoQuery } from './no-query.js';

/** One issue with its breakdowns (issue 18). */
export function registerGetIssue(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Params: { projectId: string; issueId: string } }>(
    '/v1/dashboard/:projectId/issues/:issueId',
    {
      preHandler: requireReader(ctx),
      handler: async (request) => {
        parseQuery(NoQuery, request.query);
        const { projectId, issueId } = request.params;
        return getIssue(request.ctx, request.accountId, projectId, issueId);
      },
    },
  );
}
