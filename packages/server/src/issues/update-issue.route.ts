import { IssueDetail, UpdateIssueBody } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import {
  ISSUE_ID_DESCRIPTION,
  PROJECT_ID_DESCRIPTION,
  TRIAGE_NOTE,
  TRIAGE_SECURITY,
} from '../agent-resources/openapi-examples.js';
import type { AppContext } from '../context.js';
import { ProjectIssueParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { requireTriage } from '../keys/require-triage.js';
import { updateIssue } from './triage.service.js';
import { TRIAGE_ERRORS } from './triage-contract.js';

/** Status, note and title of an issue: session with CSRF, or an API key with `triage`. */
export function registerUpdateIssue(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'PATCH',
      url: '/v1/dashboard/:projectId/issues/:issueId',
      params: ProjectIssueParams,
      body: UpdateIssueBody,
      doc: {
        operationId: 'updateIssue',
        tags: ['Issues'],
        summary: 'Resolve, ignore or reopen an issue; set its notes or rename it',
        description: `\`status\`: \`open\`, \`resolved\` (a new report reopens it and sets \`regressed_at\`) or \`ignored\` (stays ignored whatever arrives). \`note\`: the developer's private note, null or "" to clear. \`agent_note\` (at most 1,000 characters, null or "" to clear): told to every agent whose report joins this issue, in the submit answer's \`issue\` field (a workaround, "fixed in 2.3, upgrade", "not planned"); an agent never sees \`note\`. \`title\`: a new title (1–200 characters, trimmed), which stays: the grouper names an issue only when it creates it. At least one of the four. Each change is recorded in the issue's history (GET …/issues/{issueId}/activity) with who made it.${TRIAGE_NOTE}`,
        security: TRIAGE_SECURITY,
        parameters: { projectId: PROJECT_ID_DESCRIPTION, issueId: ISSUE_ID_DESCRIPTION },
        requestExamples: {
          resolve: {
            summary: 'Resolve with a note',
            value: { status: 'resolved', note: 'Fixed in 2.3.1' },
          },
          agentNote: {
            summary: 'Tell the reporting agents a workaround',
            value: { agent_note: 'Use page= instead of cursor= until 2.3.' },
          },
        },
        responses: { '200': { description: 'The issue after the change.', schema: IssueDetail } },
        errors: TRIAGE_ERRORS,
      },
    },
    auth: requireTriage,
    handler: ({ request, ctx, params, body }) =>
      updateIssue(ctx, request.accountId, request.actor, params.projectId, params.issueId, body),
  });
}
