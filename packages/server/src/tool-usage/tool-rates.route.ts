import { ToolRates, ToolRatesQuery } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import { READ_AUTH_ERROR_CODES } from '../agent-resources/error-guide.js';
import {
  EXAMPLE_PROJECT_ID,
  PROJECT_ID_DESCRIPTION,
  READ_SECURITY,
} from '../agent-resources/openapi-examples.js';
import type { AppContext } from '../context.js';
import { ProjectParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { requireReader } from '../keys/require-reader.js';
import { toolRates } from './tool-rates.service.js';

const PARAMETER_DESCRIPTIONS: Record<string, string> = {
  projectId: PROJECT_ID_DESCRIPTION,
  from: 'Only calls and reports at or after this: an ISO 8601 date or date-time, read as by the reports list. Calls count by the minute they were counted in (by the hour, for ends older than a week).',
  to: 'Only calls and reports up to this (inclusive), same formats as `from`; a date-only `to` covers that whole day.',
  tool_name: 'Only this tool (exact match).',
  by: "`server_version`: add `versions`, the tool's figures per server version (needs `tool_name`).",
  page: 'Page number, 1 or more (default 1).',
  limit: 'Tools per page, 1 or more (default 50); values above 100 are clamped to 100.',
};

/** Calls, error rates and reports per 1,000 calls per tool (tool-rates.service.ts). */
export function registerToolRates(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/dashboard/:projectId/tools',
      params: ProjectParams,
      query: ToolRatesQuery,
      doc: {
        operationId: 'listToolRates',
        tags: ['Reports'],
        summary: 'Calls, error rates and reports per tool',
        description:
          "Per tool: the calls and errors your hosts counted (POST /v1/usage, sent by the MCP add-on and the Express router), their error rate, the reports agents sent about it and the reports per 1,000 calls. A tool without call counts in the range has `calls`, `errors`, `error_rate` and `reports_per_1000_calls` null: a report count alone says little without the calls behind it. Busiest first (by calls, then reports). With `by=server_version&tool_name=…`, `versions` holds the tool's figures per `server_version` (counts carry it in the usage body, reports in `metadata.server_version`), the earliest first, to compare a tool before and after a release.",
        security: READ_SECURITY,
        parameters: PARAMETER_DESCRIPTIONS,
        responses: {
          '200': {
            description: 'One page of tools.',
            schema: ToolRates,
            example: {
              project: { id: EXAMPLE_PROJECT_ID, name: 'My MCP server' },
              tools: [
                {
                  tool_name: 'search_issues',
                  calls: 1000,
                  errors: 10,
                  error_rate: 0.01,
                  reports: 4,
                  reports_per_1000_calls: 4,
                },
              ],
              pagination: { page: 1, limit: 50, total: 1 },
            },
          },
        },
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
    handler: ({ request, ctx, params, query }) =>
      toolRates(ctx, request.accountId, params.projectId, query),
  });
}
