import { IssueList, ListIssuesQuery } from '@debrief/protocol';
import type { FastifyInstance } from 'fastify';
import { READ_AUTH_ERROR_CODES } from '../agent-resources/error-guide.js';
import {
  EXAMPLE_ISSUE,
  EXAMPLE_PROJECT_ID,
  PROJECT_ID_DESCRIPTION,
  READ_SECURITY,
} from '../agent-resources/openapi-examples.js';
import type { AppContext } from '../context.js';
import { ProjectParams } from '../http/path-params.js';
import { registerRoute } from '../http/route-contract.js';
import { requireReader } from '../keys/require-reader.js';
import { listIssues } from './issue-read.service.js';

const PARAMETER_DESCRIPTIONS: Record<string, string> = {
  projectId: PROJECT_ID_DESCRIPTION,
  status: '`open` (default), `resolved`, `ignored`, or `all`.',
  outcome: 'Only issues whose most frequent outcome is this one.',
  kind: '`problem` (issues of failures, confusion and giving up: what the dashboard lists by default), `request` (feature requests) or `success` (calls that worked); all kinds when absent.',
  tool_name: 'Only issues about this tool (exact match).',
  q: 'Only issues whose title contains this text, ignoring case (every letter, on both databases). Surrounding spaces are ignored; at most 200 characters.',
  sort: '`last_seen` (default), `first_seen` or `count` (reports; with `from`/`to`, the reports in the range, ties by `last_seen`), each descending.',
  from: 'Only issues with a report at or after this: an ISO 8601 date (`2026-11-21`) or date-time (`2026-11-21T14:30:00Z`; offset honoured, UTC when absent), read as by the reports list. Each issue then carries `range_count`.',
  to: 'Only issues with a report up to this (inclusive), same formats as `from`; a date-only `to` covers that whole day. `from` after `to` is a 400 `invalid_query`.',
  page: 'Page number, 1 or more (default 1).',
  limit: 'Issues per page, 1 or more (default 50); values above 100 are clamped to 100.',
};

/** A project's issues: open ones by default, most recently seen first. */
export function registerListIssues(app: FastifyInstance, ctx: AppContext): void {
  registerRoute(app, ctx, {
    contract: {
      method: 'GET',
      url: '/v1/dashboard/:projectId/issues',
      params: ProjectParams,
      query: ListIssuesQuery,
      doc: {
        operationId: 'listIssues',
        tags: ['Issues'],
        summary: 'List the issues of a project',
        description:
          "Every report belongs to an issue, the problem (or feature request) behind it; a background grouper places each report a moment after its 201 (`issue_id` on the report). Open issues by default, most recently seen first. `outcome` is the most frequent outcome of the issue's reports; `title` a short summary made from them; `regressed_at` when a new report last reopened it after it was resolved. With `from` and/or `to` (the reports list's date range, read and refused the same way), only issues with at least one report in the range are listed, `range_count` is each one's reports in it, and `sort=count` orders by `range_count`; without a range `range_count` is null. `trend` is each issue's reports per UTC day of the last 14 days (today included, whatever the range), oldest first, days without reports omitted (as the issue's `daily`). Reports still waiting for the grouper count nowhere until placed.",
        security: READ_SECURITY,
        parameters: PARAMETER_DESCRIPTIONS,
        responses: {
          '200': {
            description: 'One page of issues.',
            schema: IssueList,
            example: {
              project: { id: EXAMPLE_PROJECT_ID, name: 'My MCP server' },
              issues: [EXAMPLE_ISSUE],
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
      listIssues(ctx, request.accountId, params.projectId, query),
  });
}
