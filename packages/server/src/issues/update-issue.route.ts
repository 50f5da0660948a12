import { UpdateIssueBody } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { parseBody } from '../http/body.js';
import { requireTriage } from '../keys/require-triage.js';
import { updateIssue } from './triage.service.js';

/** Status and note of an issue (issue 18): session with CSRF, or an API key with `triage`. */
export function registerUpdateIssue(app: FastifyInstance, ctx: AppContext): void {
  app.patch<{ Params: { projectId: string; issueId: string } }>(
    '/v1/dashboard/:projectId/issues/:issueId',
    {
      preHandler: requireTriage(ctx),
      handler: async (request) => {
        const body = parseBody(UpdateIssueBody, request.body);
        const { projectId, issueId } = request.params;
        return updateIssue(ctx, request.accountId, projectId, issueId, body);
      },
    },
  );
}
