import { MovedReport, MoveReportBody } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import {
  PROJECT_ID_DESCRIPTION,
  TRIAGE_NOTE,
  TRIAGE_SECURITY,
} from '../agent-resources/openapi-examples.js';
import type { AppContext } from '../context.js';
import { ProjectReportParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { requireTriage } from '../keys/require-triage.js';
import { moveReport } from './triage.service.js';
import { TRIAGE_ERRORS } from './triage-contract.js';

/** Moves a report into another issue or a new one, and the grouping remembers. */
export function registerMoveReport(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'POST',
      url: '/v1/dashboard/:projectId/reports/:reportId/move',
      params: ProjectReportParams,
      body: MoveReportBody,
      doc: {
        operationId: 'moveReport',
        tags: ['Issues'],
        summary: 'Move a report into another issue, or a new one',
        description: `\`{"issue_id": "…"}\` moves it into that issue of the project; \`{"new_issue": true}\` into a new issue. The grouping remembers: later reports like this one follow it there. The issue it left is recounted, and deleted once empty.${TRIAGE_NOTE}`,
        security: TRIAGE_SECURITY,
        parameters: {
          projectId: PROJECT_ID_DESCRIPTION,
          reportId: 'Id of a report of the project.',
        },
        requestExamples: {
          newIssue: { summary: 'Into a new issue', value: { new_issue: true } },
        },
        responses: { '200': { description: 'Where the report is now.', schema: MovedReport } },
        errors: TRIAGE_ERRORS,
      },
    },
    auth: requireTriage,
    handler: ({ request, ctx, params, body }) =>
      moveReport(ctx, request.accountId, request.actor, params.projectId, params.reportId, body),
  });
}
