import { MuteList } from '@debrief/protocol';
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
import { NoQuery } from '../../issues/no-query.js';
import { requireReader } from '../../keys/require-reader.js';
import { listMutes } from './mute.service.js';

/** An issue's notification mutes, ended ones included (`active: false`). */
export function registerListMutes(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/dashboard/:projectId/issues/:issueId/mutes',
      params: ProjectIssueParams,
      query: NoQuery,
      doc: {
        operationId: 'listIssueMutes',
        tags: ['Notifications'],
        summary: "An issue's notification mutes",
        description:
          "Each mute silences the issue for one destination (`destination_id`) or all of the project's (null), until `until`, until the issue has `until_count` reports, or until it is deleted. `active` says whether it silences the issue now.",
        security: READ_SECURITY,
        parameters: { projectId: PROJECT_ID_DESCRIPTION, issueId: ISSUE_ID_DESCRIPTION },
        responses: { '200': { description: 'The mutes, oldest first.', schema: MuteList } },
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
      listMutes(ctx, request.accountId, params.projectId, params.issueId),
  });
}
