import { DeletedGroupingRule } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import {
  PROJECT_ID_DESCRIPTION,
  TRIAGE_NOTE,
  TRIAGE_SECURITY,
} from '../../agent-resources/openapi-examples.js';
import type { AppContext } from '../../context.js';
import { ProjectRuleParams } from '../../http/path-params.js';
import { registerRoute } from '../../http/route-contract.js';
import { requireTriage } from '../../keys/require-triage.js';
import { TRIAGE_ERRORS } from '../triage-contract.js';
import { deleteGroupingRule } from './grouping-rule.service.js';
import { RULE_ID_DESCRIPTION } from './update-grouping-rule.route.js';

/** Deletes a grouping rule; reports it placed stay where they are. */
export function registerDeleteGroupingRule(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'DELETE',
      url: '/v1/dashboard/:projectId/grouping-rules/:ruleId',
      params: ProjectRuleParams,
      doc: {
        operationId: 'deleteGroupingRule',
        tags: ['Grouping rules'],
        summary: 'Delete a grouping rule',
        description: `Reports grouped from then on no longer follow it; those it placed stay in their issues (move them if need be).${TRIAGE_NOTE}`,
        security: TRIAGE_SECURITY,
        parameters: { projectId: PROJECT_ID_DESCRIPTION, ruleId: RULE_ID_DESCRIPTION },
        responses: { '200': { description: 'Deleted.', schema: DeletedGroupingRule } },
        errors: TRIAGE_ERRORS,
      },
    },
    auth: requireTriage,
    handler: ({ request, ctx, params }) =>
      deleteGroupingRule(ctx, request.accountId, params.projectId, params.ruleId),
  });
}
