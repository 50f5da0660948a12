import { MergedIssueList } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import { READ_AUTH_ERROR_CODES } from '../../agent-resources/error-guide.js';
import {
  ISSUE_ID_DESCRIPTION,
  PROJECT_ID_DESCRIPTION,
  READ_SECURITY,
} from '../../agent-resources/openapi-examples.js';
import type { AppContext } from '../../context.js';
import { ProjectIssueParams } from '../../http/path-params.js';
import { registerRoute } from '../../http/route-contract.js';
import { requireReader } from '../../keys/require-reader.js';
import { NoQuery } from '../no-query.js';
import { listMergedIssues } from './unmerge.service.js';

/** The issues merged into this one, which unmerge can bring back. */
export function registerListMergedIssues(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/dashboard/:projectId/issues/:issueId/merges',
      params: ProjectIssueParams,
      query: NoQuery,
      doc: {
        operationId: 'listMergedIssues',
        tags: ['Issues'],
        summary: 'Issues merged into this one',
        description:
          'Each issue merged into this one that POST …/issues/{issueId}/unmerge can split back off, newest merge first, with how many of its reports are still here.',
        security: READ_SECURITY,
        parameters: { projectId: PROJECT_ID_DESCRIPTION, issueId: ISSUE_ID_DESCRIPTION },
        responses: { '200': { description: 'The merged issues.', schema: MergedIssueList } },
        errors: [
          'invalid_query',
          ...READ_AUTH_ERROR_CODES,
          'project_not_found',
          'not_found',
          'internal_error',
          'service_unavailable',
        ],
      },
    },
    auth: requireReader,
    handler: ({ request, ctx, params }) =>
      listMergedIssues(ctx, request.accountId, params.projectId, params.issueId),
  });
}
