import {
  IssueDetail,
  IssueEvent,
  IssueList,
  ListIssuesQuery,
  MergeIssueBody,
  MovedReport,
  MoveReportBody,
  UpdateIssueBody,
} from '@debrief/protocol';
import { READ_AUTH_ERROR_CODES } from './error-guide.js';
import { problemResponses, ref } from './openapi-responses.js';
import { type JsonSchema, toJsonSchema } from './openapi-schemas.js';

/**
 * The issues API (issue 18) in the OpenAPI document: reads with the read credentials, triage
 * writes with the dashboard session (and its CSRF token) or an API key with the `triage` scope.
 */

const READ_SECURITY = [{ ApiKey: [] }, { DashboardSession: [] }];
const TRIAGE_SECURITY = [{ ApiKey: ['triage'] }, { DashboardSession: [] }];
const EXAMPLE_ISSUE_ID = '019a8f3d0c1e7a2b8c4d6e8f0a1b2c3d';
const EXAMPLE_ISSUE = {
  id: EXAMPLE_ISSUE_ID,
  title: 'search_issues: page 2 repeats page 1',
  status: 'open',
  regressed_at: null,
  outcome: 'failure',
  tool_name: 'search_issues',
  report_count: 14,
  range_count: null,
  first_seen: '2026-11-20T08:12:00Z',
  last_seen: '2026-11-21T14:30:00Z',
  sample_details: 'Asked for page 2 of the results and got the same 20 issues as page 1.',
};

export const ISSUE_QUERY_DESCRIPTIONS: Record<string, string> = {
  status: '`open` (default), `resolved`, `ignored`, or `all`.',
  outcome: 'Only issues whose most frequent outcome is this one.',
  tool_name: 'Only issues about this tool (exact match).',
  sort: '`last_seen` (default), `first_seen` or `count` (reports; with `from`/`to`, the reports in the range, ties by `last_seen`), each descending.',
  from: 'Only issues with a report at or after this: an ISO 8601 date (`2026-11-21`) or date-time (`2026-11-21T14:30:00Z`; offset honoured, UTC when absent), read as by the reports list. Each issue then carries `range_count`.',
  to: 'Only issues with a report up to this (inclusive), same formats as `from`; a date-only `to` covers that whole day. `from` after `to` is a 400 `invalid_query`.',
  page: 'Page number, 1 or more (default 1).',
  limit: 'Issues per page, 1 or more (default 50); values above 100 are clamped to 100.',
};

function queryParameters(): JsonSchema[] {
  const schema = toJsonSchema(ListIssuesQuery, 'input');
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(properties).map(([name, property]) => {
    const { description: _zodName, ...rest } = property;
    return {
      name,
      in: 'query',
      required: false,
      description: ISSUE_QUERY_DESCRIPTIONS[name] ?? '',
      schema: rest,
    };
  });
}

export function issueComponentSchemas(): Record<string, JsonSchema> {
  return {
    IssueList: toJsonSchema(IssueList, 'output'),
    IssueDetail: toJsonSchema(IssueDetail, 'output'),
    UpdateIssueBody: toJsonSchema(UpdateIssueBody, 'input'),
    MergeIssueBody: toJsonSchema(MergeIssueBody, 'input'),
    MoveReportBody: toJsonSchema(MoveReportBody, 'input'),
    MovedReport: toJsonSchema(MovedReport, 'output'),
    IssueEvent: toJsonSchema(IssueEvent, 'output'),
  };
}

const json = (schema: string, description: string, example?: unknown) => ({
  description,
  content: { 'application/json': { schema: ref(schema), ...(example ? { example } : {}) } },
});

export function issuePaths(base: string, projectId: JsonSchema): Record<string, JsonSchema> {
  const issueId = {
    name: 'issueId',
    in: 'path',
    required: true,
    description: 'Id of an issue of the project (32 lowercase hex characters).',
    schema: { type: 'string' },
  };
  const readErrors = problemResponses(base, [
    'invalid_query',
    ...READ_AUTH_ERROR_CODES,
    'project_not_found',
    'not_found',
    'internal_error',
    'service_unavailable',
  ]);
  const writeErrors = problemResponses(base, [
    'invalid_json',
    'invalid_body',
    'validation_failed',
    ...READ_AUTH_ERROR_CODES,
    'csrf_failed',
    'missing_scope',
    'project_not_found',
    'not_found',
    'internal_error',
    'service_unavailable',
  ]);
  const triageNote =
    ' Needs the dashboard session with its `x-csrf-token`, or an API key created with the `triage` scope (a `read` key gets 403 `missing_scope`).';
  return {
    '/v1/dashboard/{projectId}/issues': {
      get: {
        operationId: 'listIssues',
        tags: ['Issues'],
        summary: 'List the issues of a project',
        description:
          "Every report belongs to an issue, the problem (or feature request) behind it; a background grouper places each report a moment after its 201 (`issue_id` on the report). Open issues by default, most recently seen first. `outcome` is the most frequent outcome of the issue's reports; `title` a short summary made from them; `regressed_at` when a new report last reopened it after it was resolved. With `from` and/or `to` (the reports list's date range, read and refused the same way), only issues with at least one report in the range are listed, `range_count` is each one's reports in it, and `sort=count` orders by `range_count`; without a range `range_count` is null. Reports still waiting for the grouper count nowhere until placed.",
        security: READ_SECURITY,
        parameters: [projectId, ...queryParameters()],
        responses: {
          '200': json('IssueList', 'One page of issues.', {
            project: { id: '019a8f3b11aa7e55b0c4d2e6f8a0b1c3', name: 'My MCP server' },
            issues: [EXAMPLE_ISSUE],
            pagination: { page: 1, limit: 50, total: 1 },
          }),
          ...readErrors,
        },
      },
    },
    '/v1/dashboard/{projectId}/issues/{issueId}': {
      get: {
        operationId: 'getIssue',
        tags: ['Issues'],
        summary: 'One issue, with its breakdowns',
        description:
          'The issue with its reports per outcome, per source and per agent client (`metadata.client_name`; null for reports that name none), at most 20 of each, its reports per UTC day over the last 90 days, and the developer note. Its reports: GET /v1/dashboard/{projectId}/reports?issue_id=…. A merged issue answers 404.',
        security: READ_SECURITY,
        parameters: [projectId, issueId],
        responses: { '200': json('IssueDetail', 'The issue.'), ...readErrors },
      },
      patch: {
        operationId: 'updateIssue',
        tags: ['Issues'],
        summary: 'Resolve, ignore or reopen an issue; set its note',
        description: `\`status\`: \`open\`, \`resolved\` (a new report reopens it and sets \`regressed_at\`) or \`ignored\` (stays ignored whatever arrives). \`note\`: the developer note, null or "" to clear. At least one of the two.${triageNote}`,
        security: TRIAGE_SECURITY,
        parameters: [projectId, issueId],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: ref('UpdateIssueBody'),
              example: { status: 'resolved', note: 'Fixed in 2.3.1' },
            },
          },
        },
        responses: { '200': json('IssueDetail', 'The issue after the change.'), ...writeErrors },
      },
    },
    '/v1/dashboard/{projectId}/issues/{issueId}/merge': {
      post: {
        operationId: 'mergeIssue',
        tags: ['Issues'],
        summary: 'Merge an issue into another',
        description: `Every report of this issue (and every move remembered for it) joins \`into\`, another issue of the same project, which keeps its own status, title and note; this issue is deleted (its id then answers 404).${triageNote}`,
        security: TRIAGE_SECURITY,
        parameters: [projectId, issueId],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: ref('MergeIssueBody'),
              example: { into: EXAMPLE_ISSUE_ID },
            },
          },
        },
        responses: { '200': json('IssueDetail', 'The issue merged into.'), ...writeErrors },
      },
    },
    '/v1/dashboard/{projectId}/reports/{reportId}/move': {
      post: {
        operationId: 'moveReport',
        tags: ['Issues'],
        summary: 'Move a report into another issue, or a new one',
        description: `\`{"issue_id": "…"}\` moves it into that issue of the project; \`{"new_issue": true}\` into a new issue. The grouping remembers: later reports like this one follow it there. The issue it left is recounted, and deleted once empty.${triageNote}`,
        security: TRIAGE_SECURITY,
        parameters: [
          projectId,
          {
            name: 'reportId',
            in: 'path',
            required: true,
            description: 'Id of a report of the project.',
            schema: { type: 'string' },
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: ref('MoveReportBody'),
              example: { new_issue: true },
            },
          },
        },
        responses: { '200': json('MovedReport', 'Where the report is now.'), ...writeErrors },
      },
    },
  };
}
