import { GroupingRule, UpdateGroupingRuleBody } from '@debrief/protocol';
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
import { updateGroupingRule } from './grouping-rule.service.js';

export const RULE_ID_DESCRIPTION =
  'Id of a grouping rule of the project (32 lowercase hex characters).';

/** Changes a grouping rule's fields (not its type). */
export function registerUpdateGroupingRule(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'PATCH',
      url: '/v1/dashboard/:projectId/grouping-rules/:ruleId',
      params: ProjectRuleParams,
      body: UpdateGroupingRuleBody,
      doc: {
        operationId: 'updateGroupingRule',
        tags: ['Grouping rules'],
        summary: 'Change a grouping rule',
        description: `The fields given change, checked as on creation; a rule keeps its type (a field of the other type is a 400). Reports already grouped stay where they are.${TRIAGE_NOTE}`,
        security: TRIAGE_SECURITY,
        parameters: { projectId: PROJECT_ID_DESCRIPTION, ruleId: RULE_ID_DESCRIPTION },
        requestExamples: {
          rename: { summary: 'Rename a rule', value: { name: 'rate limits (all tools)' } },
        },
        responses: { '200': { description: 'The rule.', schema: GroupingRule } },
        errors: TRIAGE_ERRORS,
      },
    },
    auth: requireTriage,
    handler: ({ request, ctx, params, body }) =>
      updateGroupingRule(ctx, request.accountId, params.projectId, params.ruleId, body),
  });
}
