import {
  DEFAULT_PAGE_LIMIT,
  ListReportsQuery,
  MAX_PAGE_LIMIT,
  ReportList,
} from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import { READ_AUTH_ERROR_CODES } from '../agent-resources/error-guide.js';
import {
  EXAMPLE_PROJECT_ID,
  EXAMPLE_REPORT,
  PROJECT_ID_DESCRIPTION,
  READ_SECURITY,
} from '../agent-resources/openapi-examples.js';
import type { AppContext } from '../context.js';
import { ProjectParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { requireReader } from '../keys/require-reader.js';
import { listReports } from './report.service.js';

const QUERY_DESCRIPTIONS: Record<string, string> = {
  projectId: PROJECT_ID_DESCRIPTION,
  outcome: 'Only reports with this outcome. `stats` ignores this filter (facet counts).',
  tool_name: 'Only reports about this tool (exact match).',
  source: 'Only reports from this source (exact match).',
  from: 'Inclusive lower bound: an ISO 8601 date (`2026-11-21`) or date-time (`2026-11-21T14:30:00Z`; offset honoured, UTC when absent).',
  to: 'Inclusive upper bound, same formats as `from`; a date-only `to` covers that whole day.',
  issue_id: 'Only the reports of this issue (32 lowercase hex characters).',
  page: 'Page number, 1 or more (default 1). A page past the end returns an empty `reports` array. Not together with `cursor`.',
  cursor:
    'Extension: `pagination.next_cursor` of the previous page, passed as it came (opaque), to get the page after it. Send the same filters as the request that returned it (`limit` may change); a cursor made for other filters or another project, or not made by this endpoint, is refused with 400 `invalid_query` naming `cursor`. Not together with `page`.',
  limit: `Reports per page, 1 or more (default ${DEFAULT_PAGE_LIMIT}); values above ${MAX_PAGE_LIMIT} are clamped to ${MAX_PAGE_LIMIT}.`,
};

export function registerListReports(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/dashboard/:projectId/reports',
      params: ProjectParams,
      query: ListReportsQuery,
      doc: {
        operationId: 'listReports',
        tags: ['Read'],
        summary: 'List reports of a project, with statistics',
        description:
          'Newest first (`created_at`, then `id`, descending). `pagination.total` counts the reports matching every filter; `stats` counts every filter except `outcome`. A project of another account is 404, like an unknown id. An unknown query parameter is refused with 400 `invalid_query` (its `detail` names it and lists the accepted ones) rather than ignored, so a filter this endpoint does not have never answers with unfiltered reports. To read everything, follow `pagination.next_cursor` (null on the last page) with `?cursor=` instead of counting pages: each page starts right after the last report of the one before, so reports arriving meanwhile neither repeat nor skip a report, and a deep page costs what the first does.',
        security: READ_SECURITY,
        parameters: QUERY_DESCRIPTIONS,
        responses: {
          '200': {
            description: 'One page of reports.',
            schema: ReportList,
            example: {
              project: { id: EXAMPLE_PROJECT_ID, name: 'My MCP server' },
              stats: { total: 1, success: 0, failure: 0, confusing: 1, gave_up: 0, request: 0 },
              reports: [EXAMPLE_REPORT],
              pagination: { page: 1, limit: DEFAULT_PAGE_LIMIT, total: 1, next_cursor: null },
            },
          },
        },
        errors: [
          'invalid_query',
          ...READ_AUTH_ERROR_CODES,
          'project_not_found',
          'internal_error',
          'service_unavailable',
          'read_timeout',
        ],
      },
    },
    auth: requireReader,
    handler: ({ request, ctx, params, query }) =>
      listReports(ctx, request.accountId, params.projectId, query),
  });
}
