import { SimilarIssues } from '@debrief/protocol';
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
import { getSimilarIssues } from './similar.service.js';

/** The issues most likely to be the same problem as this one. */
export function registerGetSimilarIssues(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/dashboard/:projectId/issues/:issueId/similar',
      params: ProjectIssueParams,
      query: NoQuery,
      doc: {
        operationId: 'getSimilarIssues',
        tags: ['Issues'],
        summary: 'Issues likely to be the same problem',
        description:
          "At most 5 issues of the same tool and kind whose reports the grouping engine finds alike, most alike first, each with a `score` (0–1, the engine's similarity, from half of what a report needs to join an issue) and a `reason` naming the words they share. Accept a suggestion by merging (POST …/issues/{issueId}/merge); reject it with POST …/issues/{issueId}/similar/reject, after which the pair is never suggested again. Successes are never suggested: a tool's successes are one issue already.",
        security: READ_SECURITY,
        parameters: { projectId: PROJECT_ID_DESCRIPTION, issueId: ISSUE_ID_DESCRIPTION },
        responses: { '200': { description: 'The suggestions.', schema: SimilarIssues } },
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
      getSimilarIssues(ctx, request.accountId, params.projectId, params.issueId),
  });
}
