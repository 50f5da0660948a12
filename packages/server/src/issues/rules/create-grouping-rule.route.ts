import { CreateGroupingRuleBody, GroupingRule, RULE_PATTERN_MAX_LENGTH } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import {
  EXAMPLE_ISSUE_ID,
  PROJECT_ID_DESCRIPTION,
  TRIAGE_NOTE,
  TRIAGE_SECURITY,
} from '../../agent-resources/openapi-examples.js';
import type { AppContext } from '../../context.js';
import { ProjectParams } from '../../http/path-params.js';
import { registerRoute } from '../../http/route-contract.js';
import { requireTriage } from '../../keys/require-triage.js';
import { TRIAGE_ERRORS } from '../triage-contract.js';
import { createGroupingRule } from './grouping-rule.service.js';

/** Adds a grouping rule; it applies to the reports grouped from then on. */
export function registerCreateGroupingRule(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'POST',
      url: '/v1/dashboard/:projectId/grouping-rules',
      params: ProjectParams,
      body: CreateGroupingRuleBody,
      doc: {
        operationId: 'createGroupingRule',
        tags: ['Grouping rules'],
        summary: 'Add a grouping rule',
        description: `Applied to every report grouped from then on, before the grouping engine, in the grouping transaction. \`route\`: reports whose \`details\` match \`pattern\` go to \`issue_id\`, shown with the reason \`rule: <name>\`; \`pattern_type\` \`text\` (default) matches a substring, ignoring case; \`regex\` a JavaScript regular expression, ignoring case, at most ${RULE_PATTERN_MAX_LENGTH} characters and refused when it could take exponential time (a repetition inside a repetition, checked with safe-regex2, or a repeated group of alternatives such as \`(a|ab)*\`). \`tool_name\` limits it to one tool (null: any). Route rules are tried oldest first; the first that matches wins. \`never_join\`: reports of the two \`tools\` never join each other's issues, whoever chose the issue (a route rule, a remembered move or the engine); a merge between them is refused. At most 50 rules a project.${TRIAGE_NOTE}`,
        security: TRIAGE_SECURITY,
        parameters: { projectId: PROJECT_ID_DESCRIPTION },
        requestExamples: {
          route: {
            summary: 'Route matching reports to an issue',
            value: {
              type: 'route',
              name: 'rate limits',
              pattern: '429|rate limit',
              pattern_type: 'regex',
              tool_name: 'search_issues',
              issue_id: EXAMPLE_ISSUE_ID,
            },
          },
          never_join: {
            summary: 'Keep two tools apart',
            value: { type: 'never_join', name: 'v1 and v2', tools: ['search', 'search_v2'] },
          },
        },
        responses: { '201': { description: 'The rule.', schema: GroupingRule } },
        errors: TRIAGE_ERRORS,
      },
    },
    auth: requireTriage,
    handler: async ({ request, reply, ctx, params, body }) =>
      reply
        .code(201)
        .send(await createGroupingRule(ctx, request.accountId, params.projectId, body)),
  });
}
