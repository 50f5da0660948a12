import { MergeIssueBody } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { parseBody } from '../http/body.js';
import { requireTriage } from '../keys/require-triage.js';
import { mergeIssue } from './triage.service.js';

/** Merges an issue into another (issue 18); answers the issue it was merged into. */
export function registerMergeIssue(app: FastifyInstance, ctx: AppContext): void {
  app.post<{ Params: { projectId: string; issueId: string } }>(
    '/v1/dashboard/:projectId/issues/:issueId/merge',
    {
      preHandler: requireTriage(ctx),
      handler: async (request) => {
        const { into } = parseBody(MergeIssueBody, request.body);
        const { projectId, issueId } = request.params;
        return mergeIssue(ctx, request.accountId, projectId, issueId, into);
      },
    },
  );
}
