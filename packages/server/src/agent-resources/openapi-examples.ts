import { OUTCOME_EXAMPLE_TOOLS, OUTCOME_EXAMPLES } from './skill-document.js';

/** Example values shared by the operations of the OpenAPI document. */

export const EXAMPLE_ID = '019a8f3c5e7b7c2d9f10a4b6c8d0e2f4';
export const EXAMPLE_PROJECT_ID = '019a8f3b11aa7e55b0c4d2e6f8a0b1c3';
export const EXAMPLE_INGEST_KEY = 'wk_3f2a9c4e1b7d6a8f0e5c2b9d4a7f1e3c';
export const EXAMPLE_ISSUE_ID = '019a8f3d0c1e7a2b8c4d6e8f0a1b2c3d';

export const EXAMPLE_REPORT = {
  id: EXAMPLE_ID,
  outcome: 'confusing',
  tool_name: OUTCOME_EXAMPLE_TOOLS.confusing,
  source: 'claude-code',
  details: OUTCOME_EXAMPLES.confusing,
  metadata: { client: 'claude-code', model: 'x-1' },
  created_at: '2026-11-21T14:30:00Z',
  redactions: 0,
  issue_id: EXAMPLE_ISSUE_ID,
  issue_reason: 'same tool, 0.82 similar to the issue',
};

/** The submit answer's `issue`: what the developer already knows of the report's issue. */
export const EXAMPLE_SUBMIT_ISSUE = {
  id: EXAMPLE_ISSUE_ID,
  status: 'resolved',
  agent_note: 'Use page= instead of cursor= until 2.3.',
};

export const EXAMPLE_ISSUE = {
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
  trend: [
    { day: '2026-11-20', count: 5 },
    { day: '2026-11-21', count: 9 },
  ],
};

export const READ_SECURITY: Record<string, string[]>[] = [{ ApiKey: [] }, { DashboardSession: [] }];
export const TRIAGE_SECURITY: Record<string, string[]>[] = [
  { ApiKey: ['triage'] },
  { DashboardSession: [] },
];

export const ADMIN_SECURITY: Record<string, string[]>[] = [
  { ApiKey: ['admin'] },
  { DashboardSession: [] },
];
export const ADMIN_NOTE =
  ' Needs the dashboard session (with its `x-csrf-token` on writes), or an API key created with the `admin` scope (a `read` or `triage` key gets 403 `missing_scope`).';

export const EXAMPLE_DESTINATION_ID = '019a8f3e2a4c7b1d8e0f2a4c6e8a0b2d';
export const EXAMPLE_DESTINATION = {
  id: EXAMPLE_DESTINATION_ID,
  project_id: EXAMPLE_PROJECT_ID,
  type: 'webhook',
  name: 'On-call receiver',
  url: 'https://hooks.example.com/debrief',
  to: null,
  events: ['issue.created', 'issue.regressed'],
  filter: { outcome: 'failure' },
  spike: { min_reports: 10, factor: 5 },
  digest_hour: null,
  metadata_keys: ['client_name'],
  status: 'active',
  created_at: '2026-11-21T14:30:00Z',
  last_delivery_at: null,
  last_error: null,
};

export const PROJECT_ID_DESCRIPTION =
  'Id of one of your projects (32 lowercase hex characters), from GET /v1/projects.';
export const ISSUE_ID_DESCRIPTION = 'Id of an issue of the project (32 lowercase hex characters).';

export const TRIAGE_NOTE =
  ' Needs the dashboard session with its `x-csrf-token`, or an API key created with the `triage` scope (a `read` key gets 403 `missing_scope`).';
