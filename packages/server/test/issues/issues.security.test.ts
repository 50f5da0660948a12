import { CreatedApiKey, ProblemDetails } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';
import { issueOf, issuesUrl, submit, triageKey } from '../support/issues-helpers.js';
import { sessionFor } from '../support/session-client.js';

/**
 * Who may triage: the dashboard session with its CSRF token, or an API key created
 * with the `triage` scope. API keys are `read` unless created otherwise; a read key gets a 403
 * problem that names the missing scope. Another account's issues are 404 to everyone.
 */
describe.each(DIALECTS)('issue triage authorisation on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  async function groupedIssue() {
    const t = await server.tenant();
    const report = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'x',
      details: 'it broke',
    });
    return { t, report, issueId: await issueOf(server, t, report) };
  }

  it('refuses every triage write with a read-only API key: 403 missing_scope naming triage', async () => {
    const { t, report, issueId } = await groupedIssue();
    const other = await groupedIssue();
    const writes = [
      call(issuesUrl(server, t, `/${issueId}`), {
        method: 'PATCH',
        body: { status: 'resolved' },
        headers: bearer(t.apiKey),
      }),
      call(issuesUrl(server, t, `/${issueId}/merge`), {
        body: { into: other.issueId },
        headers: bearer(t.apiKey),
      }),
      call(`${server.url}/v1/dashboard/${t.projectId}/reports/${report}/move`, {
        body: { new_issue: true },
        headers: bearer(t.apiKey),
      }),
    ];
    for (const res of await Promise.all(writes)) {
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const problem = ProblemDetails.parse(res.body);
      expect(problem.code).toBe('missing_scope');
      expect(problem.detail).toMatch(/"triage" scope/);
    }
    // Reads still work with it, and nothing changed.
    const detail = await call(issuesUrl(server, t, `/${issueId}`), { headers: bearer(t.apiKey) });
    expect(detail.status).toBe(200);
    expect(detail.body.status).toBe('open');
  });

  it('lets a dashboard session triage only with its CSRF token', async () => {
    const { t, issueId } = await groupedIssue();
    const browser = await sessionFor(server, t.accountId);
    const without = await browser.call(`/v1/dashboard/${t.projectId}/issues/${issueId}`, {
      method: 'PATCH',
      body: { status: 'ignored' },
      headers: { 'x-csrf-token': 'wrong' },
    });
    expect(without.status).toBe(403);
    expect(without.body.code).toBe('csrf_failed');
    const withToken = await browser.call(`/v1/dashboard/${t.projectId}/issues/${issueId}`, {
      method: 'PATCH',
      body: { status: 'ignored' },
    });
    expect(withToken.status).toBe(200);
    expect(withToken.body.status).toBe('ignored');
    const list = await browser.call(`/v1/dashboard/${t.projectId}/issues?status=ignored`);
    expect(list.status).toBe(200);
    expect(list.body.issues).toHaveLength(1);
  });

  it('creates API keys with scopes through the console: read by default, triage when asked', async () => {
    const { t, issueId } = await groupedIssue();
    const browser = await sessionFor(server, t.accountId);
    const plain = await browser.call('/v1/console/api-keys', { body: { name: 'reader' } });
    expect(CreatedApiKey.parse(plain.body).scopes).toEqual(['read']);
    const triager = await browser.call('/v1/console/api-keys', {
      body: { name: 'triager', scopes: ['triage'] },
    });
    expect(triager.status).toBe(201);
    const created = CreatedApiKey.parse(triager.body);
    expect(created.scopes).toEqual(['read', 'triage']);
    const listed = await browser.call('/v1/console/api-keys');
    expect(listed.body.find((k: { id: string }) => k.id === created.id).scopes).toEqual([
      'read',
      'triage',
    ]);
    const bad = await browser.call('/v1/console/api-keys', {
      body: { name: 'x', scopes: ['owner'] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('scopes.0');

    const res = await call(issuesUrl(server, t, `/${issueId}`), {
      method: 'PATCH',
      body: { status: 'resolved' },
      headers: bearer(created.key),
    });
    expect(res.status).toBe(200);
    const readOnly = await call(issuesUrl(server, t, `/${issueId}`), {
      method: 'PATCH',
      body: { status: 'open' },
      headers: bearer(plain.body.key),
    });
    expect(readOnly.status).toBe(403);
  });

  it("answers 404 for another account's project, issue and report, even with a triage key", async () => {
    const victim = await groupedIssue();
    const attacker = await server.tenant();
    const key = await triageKey(server, attacker);
    const attempts = [
      call(`${server.url}/v1/dashboard/${victim.t.projectId}/issues`, { headers: bearer(key) }),
      call(`${server.url}/v1/dashboard/${victim.t.projectId}/issues/${victim.issueId}`, {
        method: 'PATCH',
        body: { status: 'ignored' },
        headers: bearer(key),
      }),
      // Own project, someone else's issue and report.
      call(issuesUrl(server, attacker, `/${victim.issueId}`), { headers: bearer(key) }),
      call(`${server.url}/v1/dashboard/${attacker.projectId}/reports/${victim.report}/move`, {
        body: { new_issue: true },
        headers: bearer(key),
      }),
    ];
    for (const res of await Promise.all(attempts)) expect(res.status).toBe(404);
    const mine = await groupedIssue();
    const crossMerge = await call(issuesUrl(server, mine.t, `/${mine.issueId}/merge`), {
      body: { into: victim.issueId },
      headers: bearer(await triageKey(server, mine.t)),
    });
    expect(crossMerge.status).toBe(400);
    expect(crossMerge.body.errors[0].field).toBe('into');
  });

  it('validates bodies and queries naming the field', async () => {
    const { t, issueId } = await groupedIssue();
    const key = await triageKey(server, t);
    const cases: [string, unknown, string][] = [
      [`/${issueId}`, { status: 'done' }, 'status'],
      [`/${issueId}`, {}, '(body)'],
      [`/${issueId}/merge`, { into: 'nope' }, 'into'],
      [`/${issueId}/merge`, { into: issueId }, 'into'],
    ];
    for (const [path, body, field] of cases) {
      const res = await call(issuesUrl(server, t, path), {
        method: path.endsWith('merge') ? 'POST' : 'PATCH',
        body,
        headers: bearer(key),
      });
      expect(res.status, path + JSON.stringify(body)).toBe(400);
      expect(res.body.errors[0].field).toBe(field);
    }
    const query = await call(issuesUrl(server, t, '?status=closed&sort=worst'), {
      headers: bearer(key),
    });
    expect(query.status).toBe(400);
    expect(query.body.errors.map((e: { field: string }) => e.field)).toEqual(['status', 'sort']);
    const filter = await call(`${server.url}/v1/dashboard/${t.projectId}/reports?issue_id=nope`, {
      headers: bearer(key),
    });
    expect(filter.status).toBe(400);
    expect(filter.body.errors[0].field).toBe('issue_id');
    const docs = await call(`${server.url}/docs`);
    expect(docs.body).toContain('with scope <code>triage</code>');
    const move = await call(`${server.url}/v1/dashboard/${t.projectId}/reports/${issueId}/move`, {
      body: { new_issue: false },
      headers: bearer(key),
    });
    expect(move.status).toBe(400);
  });
});
