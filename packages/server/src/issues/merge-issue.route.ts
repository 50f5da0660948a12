import { IssueDetail, MergeIssueBody } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import {
  EXAMPLE_ISSUE_ID,
  ISSUE_ID_DESCRIPTION,
  PROJECT_ID_DESCRIPTION,
  TRIAGE_NOTE,
  TRIAGE_SECURITY,
} from '../agent-resources/openapi-examples.js';
import type { AppContext } from '../context.js';
import { ProjectIssueParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { requireTriage } from '../keys/require-triage.js';
import { mergeIssue } from './triage.service.js';
import { TRIAGE_ERRORS } from './triage-contract.js';

/** Merges an issue into another; answers the issue it was merged into. */
export function registerMergeIssue(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'POST',
      url: '/v1/dashboard/:projectId/issues/:issueId/merge',
      params: ProjectIssueParams,
      body: MergeIssueBody,
      doc: {
        operationId: 'mergeIssue',
        tags: ['Issues'],
        summary: 'Merge an issue into another',
        description: `Every report of this issue (and every move remembered for it) joins \`into\`, another issue of the same project, which keeps its own status, title and note; this issue is deleted (its id then answers 404).${TRIAGE_NOTE}`,
        security: TRIAGE_SECURITY,
        parameters: { projectId: PROJECT_ID_DESCRIPTION, issueId: ISSUE_ID_DESCRIPTION },
        requestExamples: {
          merge: { summary: 'Merge into another issue', value: { into: EXAMPLE_ISSUE_ID } },
        },
        responses: { '200': { description: 'The issue merged into.', schema: IssueDetail } },
        errors: TRIAGE_ERRORS,
      },
    },
    auth: requireTriage,
    handler: ({ request, ctx, params, body }) =>
      mergeIssue(
        ctx,
        request.accountId,
        request.actor,
        params.projectId,
        params.issueId,
        body.into,
      ),
  });
}
