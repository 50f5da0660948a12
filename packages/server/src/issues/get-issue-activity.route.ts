import { IssueActivityList } from '@debrief/protocol';
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
import { getIssueActivity } from './issue-read.service.js';
import { NoQuery } from './no-query.js';

/** What happened to an issue, who did it and when. */
export function registerGetIssueActivity(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/dashboard/:projectId/issues/:issueId/activity',
      params: ProjectIssueParams,
      query: NoQuery,
      doc: {
        operationId: 'getIssueActivity',
        tags: ['Issues'],
        summary: "An issue's history",
        description:
          "The issue's last 100 triage actions, newest first: status changes, note changes, renames, issues merged into it (or split back out), reports moved in or out, each with who did it (`actor`: a signed-in user's email, or an API key's name and prefix) and when. What the grouper does on its own (a report joining, a regression) is not listed: the reports and `regressed_at` say it.",
        security: READ_SECURITY,
        parameters: { projectId: PROJECT_ID_DESCRIPTION, issueId: ISSUE_ID_DESCRIPTION },
        responses: { '200': { description: "The issue's history.", schema: IssueActivityList } },
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
      getIssueActivity(ctx, request.accountId, params.projectId, params.issueId),
  });
}
