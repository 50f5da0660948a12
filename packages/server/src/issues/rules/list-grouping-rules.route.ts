import { GroupingRuleList } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import { READ_AUTH_ERROR_CODES } from '../../agent-resources/error-guide.js';
import { PROJECT_ID_DESCRIPTION, READ_SECURITY } from '../../agent-resources/openapi-examples.js';
import type { AppContext } from '../../context.js';
import { ProjectParams } from '../../http/path-params.js';
import { registerRoute } from '../../http/route-contract.js';
import { requireReader } from '../../keys/require-reader.js';
import { NoQuery } from '../no-query.js';
import { listGroupingRules } from './grouping-rule.service.js';

/** A project's grouping rules, in the order they are applied. */
export function registerListGroupingRules(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/dashboard/:projectId/grouping-rules',
      params: ProjectParams,
      query: NoQuery,
      doc: {
        operationId: 'listGroupingRules',
        tags: ['Grouping rules'],
        summary: "List a project's grouping rules",
        description:
          "The rules the grouper applies before its engine, oldest first (the order route rules are tried in). A `route` rule sends reports whose `details` match `pattern` (on `tool_name`, or any tool when null) to `issue_id`, with the reason `rule: <name>`; a `never_join` rule keeps the reports of its two `tools` out of each other's issues.",
        security: READ_SECURITY,
        parameters: { projectId: PROJECT_ID_DESCRIPTION },
        responses: { '200': { description: 'The rules.', schema: GroupingRuleList } },
        errors: [
          'invalid_query',
          ...READ_AUTH_ERROR_CODES,
          'project_not_found',
          'internal_error',
          'service_unavailable',
        ],
      },
    },
    auth: requireReader,
    handler: ({ request, ctx, params }) =>
      listGroupingRules(ctx, request.accountId, params.projectId),
  });
}
