import { IssueDetail } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import { READ_AUTH_ERROR_CODES } from '../agent-resources/error-guide.js';
import {
  ISSUE_ID_DESCRIPTION,
  PROJECT_ID_DESCRIPTION,
  READ_SECURITY,
} from '../agent-resources/openapi-examples.js';
import type { AppContext } from '../context.js';
import { ProjectIssueParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { requireReader } from '../keys/require-reader.js';
import { getIssue } from './issue-read.service.js';
import { NoQuery } from './no-query.js';

/** One issue with its breakdowns. */
export function registerGetIssue(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/dashboard/:projectId/issues/:issueId',
      params: ProjectIssueParams,
      query: NoQuery,
      doc: {
        operationId: 'getIssue',
        tags: ['Issues'],
        summary: 'One issue, with its breakdowns',
        description:
          'The issue with its reports per outcome, per source and per agent client (`metadata.client_name`; null for reports that name none), at most 20 of each, its reports per UTC day over the last 90 days, and the developer note. Its reports: GET /v1/dashboard/{projectId}/reports?issue_id=…. A merged issue answers 404.',
        security: READ_SECURITY,
        parameters: { projectId: PROJECT_ID_DESCRIPTION, issueId: ISSUE_ID_DESCRIPTION },
        responses: { '200': { description: 'The issue.', schema: IssueDetail } },
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
      getIssue(ctx, request.accountId, params.projectId, params.issueId),
  });
}
