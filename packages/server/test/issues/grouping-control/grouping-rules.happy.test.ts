import { GroupingRule, GroupingRuleList, ReportList } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../../test/harness/test-server.js';
import { bearer, call } from '../../support/http.js';
import { issueOf, issuesUrl, submit, triageKey } from '../../support/issues-helpers.js';

/**
 * Grouping rules on every dialect: a route rule places a matching report in its issue before
 * the engine is asked, with the reason `rule: <name>`; a never-join rule keeps two tools' reports
 * apart whoever chose the issue, and refuses a merge between them.
 */
describe.each(DIALECTS)('grouping rules on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  const reasonOf = async (t: Parameters<typeof issueOf>[1], reportId: string) => {
    const res = await call(`${server.url}/v1/dashboard/${t.projectId}/reports?limit=100`, {
      headers: bearer(t.apiKey),
    });
    return ReportList.parse(res.body).reports.find((r) => r.id === reportId)?.issue_reason;
  };

  it('places a report that matches a route rule in its issue, with the rule as its reason', async () => {
    const t = await server.tenant();
    const key = await triageKey(server, t);
    const upload = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'files',
      details: 'Upload failed: the attachment is bigger than the 10 MB size limit',
    });
    const denied = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'files',
      details: 'Permission denied writing to the shared bucket: the token is read only',
    });
    const uploadIssue = await issueOf(server, t, upload);
    const deniedIssue = await issueOf(server, t, denied);
    expect(deniedIssue).not.toBe(uploadIssue);

    const created = await call(`${server.url}/v1/dashboard/${t.projectId}/grouping-rules`, {
      body: {
        type: 'route',
        name: 'quota is a permissions problem',
        pattern: 'QUOTA',
        tool_name: 'files',
        issue_id: deniedIssue,
      },
      headers: bearer(key),
    });
    expect(created.status).toBe(201);
    const rule = GroupingRule.parse(created.body);
    expect(rule).toMatchObject({ type: 'route', pattern_type: 'text', tool_name: 'files' });

    // Worded like the upload problem, but the rule comes first.
    const quota = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'files',
      details: 'Upload failed: the attachment is bigger than the quota allows',
    });
    expect(await issueOf(server, t, quota)).toBe(deniedIssue);
    expect(await reasonOf(t, quota)).toBe('rule: quota is a permissions problem');

    // A regular expression on any tool; another tool's report goes to the issue all the same.
    const regex = await call(`${server.url}/v1/dashboard/${t.projectId}/grouping-rules`, {
      body: {
        type: 'route',
        name: 'timeouts',
        pattern: '^time(d)? ?out\\b',
        pattern_type: 'regex',
        issue_id: uploadIssue,
      },
      headers: bearer(key),
    });
    expect(regex.status).toBe(201);
    const timeout = await submit(server, t, {
      outcome: 'gave_up',
      tool_name: 'search',
      details: 'Timeout after 30 seconds waiting for the index',
    });
    expect(await issueOf(server, t, timeout)).toBe(uploadIssue);
    expect(await reasonOf(t, timeout)).toBe('rule: timeouts');

    const list = GroupingRuleList.parse(
      (
        await call(`${server.url}/v1/dashboard/${t.projectId}/grouping-rules`, {
          headers: bearer(t.apiKey),
        })
      ).body,
    );
    expect(list.rules.map((r) => r.name)).toEqual(['quota is a permissions problem', 'timeouts']);

    // Deleted: the engine decides again.
    const gone = await call(`${server.url}/v1/dashboard/${t.projectId}/grouping-rules/${rule.id}`, {
      method: 'DELETE',
      headers: bearer(key),
    });
    expect(gone.status).toBe(200);
    const after = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'files',
      details: 'Upload failed: the attachment is bigger than the quota allows',
    });
    await issueOf(server, t, after);
    expect(await reasonOf(t, after)).not.toMatch(/^rule:/);
  });

  it('a never-join rule keeps two tools apart, over a route rule, and refuses their merge', async () => {
    const t = await server.tenant();
    const key = await triageKey(server, t);
    const rules = `${server.url}/v1/dashboard/${t.projectId}/grouping-rules`;
    const first = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'search',
      details: 'Rate limited: 429 Too Many Requests from the search backend',
    });
    const searchIssue = await issueOf(server, t, first);
    const route = await call(rules, {
      body: { type: 'route', name: 'rate limits', pattern: '429', issue_id: searchIssue },
      headers: bearer(key),
    });
    expect(route.status).toBe(201);
    const never = await call(rules, {
      body: { type: 'never_join', name: 'v1 and v2 apart', tools: ['search', 'search_v2'] },
      headers: bearer(key),
    });
    expect(never.status).toBe(201);
    expect(GroupingRule.parse(never.body).tools).toEqual(['search', 'search_v2']);

    // Another tool, not kept apart: the route rule sends it to the search issue.
    const other = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'fetch',
      details: 'Got 429 from the upstream',
    });
    expect(await issueOf(server, t, other)).toBe(searchIssue);
    // search_v2 is kept apart from search: a new issue, saying why.
    const v2 = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'search_v2',
      details: 'Got 429 from the upstream',
    });
    const v2Issue = await issueOf(server, t, v2);
    expect(v2Issue).not.toBe(searchIssue);
    expect(await reasonOf(t, v2)).toContain('rule: v1 and v2 apart');

    const merge = await call(issuesUrl(server, t, `/${v2Issue}/merge`), {
      body: { into: searchIssue },
      headers: bearer(key),
    });
    expect(merge.status).toBe(400);
    expect(merge.body.code).toBe('validation_failed');
    expect(merge.body.detail).toContain('v1 and v2 apart');
  });

  it('refuses patterns that could take exponential time, and rules of a read key', async () => {
    const t = await server.tenant();
    const key = await triageKey(server, t);
    const rules = `${server.url}/v1/dashboard/${t.projectId}/grouping-rules`;
    const anIssue = await issueOf(
      server,
      t,
      await submit(server, t, { outcome: 'failure', details: 'something broke' }),
    );
    const unsafe = await call(rules, {
      body: {
        type: 'route',
        name: 'x',
        pattern: '(a+)+b',
        pattern_type: 'regex',
        issue_id: anIssue,
      },
      headers: bearer(key),
    });
    expect(unsafe.status).toBe(400);
    expect(unsafe.body.errors).toEqual([
      { field: 'pattern', message: 'may take exponential time (nested repetition)' },
    ]);
    const invalid = await call(rules, {
      body: { type: 'route', name: 'x', pattern: '(', pattern_type: 'regex', issue_id: anIssue },
      headers: bearer(key),
    });
    expect(invalid.status).toBe(400);
    const long = await call(rules, {
      body: { type: 'route', name: 'x', pattern: 'a'.repeat(201), issue_id: anIssue },
      headers: bearer(key),
    });
    expect(long.status).toBe(400);
    const noIssue = await call(rules, {
      body: { type: 'route', name: 'x', pattern: 'a', issue_id: 'f'.repeat(32) },
      headers: bearer(key),
    });
    expect(noIssue.body.errors).toEqual([
      { field: 'issue_id', message: 'names no issue of this project' },
    ]);
    const readOnly = await call(rules, {
      body: { type: 'never_join', name: 'x', tools: ['a', 'b'] },
      headers: bearer(t.apiKey),
    });
    expect(readOnly.status).toBe(403);
  });
});
