import { createReader, createReporter, DebriefError } from '@debrief/client';
import { createApiKey } from '@debrief/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';

/** The reader's issue methods against a real Debrief. */
describe('createReader: issues', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(() => server.close());

  it('lists, reads and triages issues, and filters reports by issue', async () => {
    const t = await server.tenant();
    const reporter = createReporter({ ingestKey: t.ingestKey, baseUrl: server.url });
    const ids: string[] = [];
    for (const details of ['token expired on call', 'token expired on call', 'bad date given']) {
      const result = await reporter.report({ outcome: 'failure', details, tool_name: 'api' });
      if (!result.ok) throw new Error(result.error.detail);
      ids.push(result.id);
    }
    const reader = createReader({ apiKey: t.apiKey, baseUrl: server.url });
    let issues = await reader.listIssues(t.projectId, { sort: 'count' });
    for (let i = 0; i < 60 && issues.pagination.total < 2; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      issues = await reader.listIssues(t.projectId, { sort: 'count' });
    }
    expect(issues.issues.map((i) => i.report_count)).toEqual([2, 1]);
    expect(issues.issues.map((i) => i.range_count)).toEqual([null, null]);
    // A range as Dates or strings: every report is from the last minute.
    const recent = await reader.listIssues(t.projectId, {
      sort: 'count',
      from: new Date(Date.now() - 60_000),
      to: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(recent.issues.map((i) => i.range_count)).toEqual([2, 1]);
    const before = await reader.listIssues(t.projectId, { to: '2020-01-01' });
    expect(before.pagination.total).toBe(0);
    const [big, small] = issues.issues.map((i) => i.id) as [string, string];
    const all = [];
    for await (const issue of reader.iterateIssues(t.projectId, { status: 'all', limit: 1 }))
      all.push(issue.id);
    expect(all.sort()).toEqual([big, small].sort());
    expect((await reader.getIssue(t.projectId, big)).outcome_counts.failure).toBe(2);
    const reports = await reader.getReports(t.projectId, { issue_id: big });
    expect(reports.reports.map((r) => r.id).sort()).toEqual([ids[0], ids[1]].sort());

    // A read key cannot triage: the DebriefError names the missing scope.
    const denied = await reader
      .updateIssue(t.projectId, big, { status: 'resolved' })
      .catch((e) => e);
    expect(denied).toBeInstanceOf(DebriefError);
    expect((denied as DebriefError).problem).toMatchObject({ code: 'missing_scope', status: 403 });

    const triageKey = (await createApiKey(server.ctx.db, t.accountId, 'triage', ['read', 'triage']))
      .key;
    const triage = createReader({ apiKey: triageKey, baseUrl: server.url });
    expect(
      await triage.updateIssue(t.projectId, big, { status: 'resolved', note: 'v2' }),
    ).toMatchObject({
      status: 'resolved',
      note: 'v2',
    });
    expect((await triage.updateIssue(t.projectId, big, { title: 'Tokens expire' })).title).toBe(
      'Tokens expire',
    );
    expect(
      (await reader.listIssues(t.projectId, { q: 'TOKENS', kind: 'problem', status: 'all' }))
        .issues,
    ).toEqual([expect.objectContaining({ id: big })]);
    const history = await reader.getIssueActivity(t.projectId, big);
    expect(history.activity.map((entry) => entry.action)).toEqual(['renamed', 'note', 'status']);
    const moved = await triage.moveReport(t.projectId, ids[2]!, { issue_id: big });
    expect(moved).toMatchObject({ ok: true, issue_id: big, from_issue_id: small });
    const merged = await triage.moveReport(t.projectId, ids[2]!, { new_issue: true });
    expect((await triage.mergeIssue(t.projectId, merged.issue_id, big)).report_count).toBe(3);
  });
});
