import { createReader } from '@debrief/client';
import { IssueDetail, ToolRates } from '@debrief/protocol';
import { expect } from 'vitest';
import type { Tenant, TestServer } from '../../../../test/harness/test-server.js';
import { bearer, call } from '../../../server/test/support/http.js';
import {
  issueOf,
  issuesUrl,
  submit,
  triageKey,
} from '../../../server/test/support/issues-helpers.js';

/**
 * What the client libraries' tests ask of a real Debrief test server (test/harness), through its
 * public API only: an issue the developer left a note on, the reports stored, the tools' rates.
 */

/**
 * Settings of a test server for the agent loop: the bounded wait for the submit answer's `issue`
 * is raised from its ~200 ms default so a loaded test machine still finds the placement in time.
 */
export const AGENT_LOOP_ENV = { ISSUE_ANSWER_WAIT_MS: '5000' };

/**
 * An issue of one report with the developer's changes applied through `PATCH …/issues/{id}` with
 * a `triage` key, as the dashboard does: an agent note, a status, a private note.
 */
export async function notedIssue(
  server: TestServer,
  t: Tenant,
  report: { tool_name: string; details: string; outcome?: string },
  change: { agent_note?: string; status?: 'open' | 'resolved' | 'ignored'; note?: string },
): Promise<IssueDetail> {
  const first = await submit(server, t, { outcome: 'failure', ...report });
  const issueId = await issueOf(server, t, first);
  const res = await call(issuesUrl(server, t, `/${issueId}`), {
    method: 'PATCH',
    body: change,
    headers: bearer(await triageKey(server, t)),
  });
  expect(res.status).toBe(200);
  return IssueDetail.parse(res.body);
}

/** The tenant's reports, newest first, through the read API. */
export async function reportsOf(server: TestServer, t: Tenant) {
  const list = await createReader({ apiKey: t.apiKey, baseUrl: server.url }).getReports(
    t.projectId,
    { limit: 100 },
  );
  return list.reports;
}

/** `GET /v1/dashboard/{projectId}/tools`: calls, errors and rates per tool. */
export async function toolRatesOf(server: TestServer, t: Tenant): Promise<ToolRates> {
  const res = await call(`${server.url}/v1/dashboard/${t.projectId}/tools`, {
    headers: bearer(t.apiKey),
  });
  expect(res.status).toBe(200);
  return ToolRates.parse(res.body);
}

/** The rate row of one tool, or undefined. */
export async function toolRateOf(server: TestServer, t: Tenant, tool: string) {
  return (await toolRatesOf(server, t)).tools.find((r) => r.tool_name === tool);
}
