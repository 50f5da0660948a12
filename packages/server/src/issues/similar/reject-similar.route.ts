import { RejectedSimilar, RejectSimilarBody } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import {
  EXAMPLE_ISSUE_ID,
  ISSUE_ID_DESCRIPTION,
  PROJECT_ID_DESCRIPTION,
  TRIAGE_NOTE,
  TRIAGE_SECURITY,
} from '../../agent-resources/openapi-examples.js';
import type { AppContext } from '../../context.js';
import { ProjectIssueParams } from '../../http/path-params.js';
import { registerRoute } from '../../http/route-contract.js';
import { requireTriage } from '../../keys/require-triage.js';
import { TRIAGE_ERRORS } from '../triage-contract.js';
import { rejectSimilar } from './similar.service.js';

/** "Not the same problem": a suggestion rejected is never made again. */
export function registerRejectSimilar(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'POST',
      url: '/v1/dashboard/:projectId/issues/:issueId/similar/reject',
      params: ProjectIssueParams,
      body: RejectSimilarBody,
      doc: {
        operationId: 'rejectSimilarIssue',
        tags: ['Issues'],
        summary: 'Reject a similar-issue suggestion',
        description: `Remembers that \`issue_id\` is not the same problem as this issue: the pair is no longer suggested (GET …/similar) nor flagged as a possible duplicate in the list, either way round. Saying it again is harmless.${TRIAGE_NOTE}`,
        security: TRIAGE_SECURITY,
        parameters: { projectId: PROJECT_ID_DESCRIPTION, issueId: ISSUE_ID_DESCRIPTION },
        requestExamples: {
          reject: { summary: 'Not the same problem', value: { issue_id: EXAMPLE_ISSUE_ID } },
        },
        responses: { '200': { description: 'Remembered.', schema: RejectedSimilar } },
        errors: TRIAGE_ERRORS,
      },
    },
    auth: requireTriage,
    handler: ({ request, ctx, params, body }) =>
      rejectSimilar(ctx, request.accountId, params.projectId, params.issueId, body.issue_id),
  });
}
