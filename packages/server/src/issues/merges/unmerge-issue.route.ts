import { UnmergedIssue, UnmergeIssueBody } from '@debrief/protocol';
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
import { unmergeIssue } from './unmerge.service.js';

/** Splits a merged issue back into the issues it was made of. */
export function registerUnmergeIssue(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'POST',
      url: '/v1/dashboard/:projectId/issues/:issueId/unmerge',
      params: ProjectIssueParams,
      body: UnmergeIssueBody,
      doc: {
        operationId: 'unmergeIssue',
        tags: ['Issues'],
        summary: 'Split merged issues back out',
        description: `Every issue merged into this one (or those named in \`issue_ids\`, from GET …/issues/{issueId}/merges) comes back under its own id, with its title, status and note, and takes back the reports it brought that are still here, each with the reason it had. Reports moved elsewhere since stay where they are; a merged issue none of whose reports are still here is not brought back. An empty body \`{}\` splits them all.${TRIAGE_NOTE}`,
        security: TRIAGE_SECURITY,
        parameters: { projectId: PROJECT_ID_DESCRIPTION, issueId: ISSUE_ID_DESCRIPTION },
        requestExamples: {
          all: { summary: 'Split every merged issue back out', value: {} },
          one: { summary: 'Split one back out', value: { issue_ids: [EXAMPLE_ISSUE_ID] } },
        },
        responses: { '200': { description: 'The issues brought back.', schema: UnmergedIssue } },
        errors: TRIAGE_ERRORS,
      },
    },
    auth: requireTriage,
    handler: ({ request, ctx, params, body }) =>
      unmergeIssue(ctx, request.accountId, params.projectId, params.issueId, body, request.actor),
  });
}
