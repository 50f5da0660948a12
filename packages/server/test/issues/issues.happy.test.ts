import { IssueDetail, IssueEvent, IssueList, MovedReport, ReportList } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';
import { expectIssueDaysExact } from '../support/issue-days.js';
import { issueOf, issuesUrl, submit, triageKey } from '../support/issues-helpers.js';
import { openSse } from '../support/sse-reader.js';

/**
 * Issues over HTTP, on every dialect: reports are grouped in the
 * background, the issues API reads them, triage changes them. The grouping engine here is the
 * placeholder (issues/grouping/): same tool, kind and leading words = same issue.
 */
describe.each(DIALECTS)('issues on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  it('gives every report an issue, alike reports one issue, different ones apart', async () => {
    const t = await server.tenant();
    const a1 = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'search_issues',
      details: 'Pagination broken: page 2 repeats page 1',
      source: 'agent-a',
      metadata: { client_name: 'claude-code' },
    });
    const a2 = await submit(server, t, {
      outcome: 'gave_up',
      tool_name: 'search_issues',
      details: 'pagination broken, page 7 repeats 6',
      source: 'agent-b',
      metadata: { client_name: 'cursor' },
    });
    const b = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'search_issues',
      details: 'Permission denied for repo 42',
    });
    const c = await submit(server, t, {
      outcome: 'success',
      tool_name: 'search_issues',
      details: 'Pagination broken? no, worked fine',
    });
    const [i1, i2, ib, ic] = await Promise.all([a1, a2, b, c].map((id) => issueOf(server, t, id)));
    expect(i1).toMatch(/^[0-9a-f]{32}$/);
    expect(i2).toBe(i1);
    expect(new Set([i1, ib, ic]).size).toBe(3);

    const reports = ReportList.parse(
      (
        await call(`${server.url}/v1/dashboard/${t.projectId}/reports?issue_id=${i1}`, {
          headers: bearer(t.apiKey),
        })
      ).body,
    );
    expect(reports.reports.map((r) => r.id).sort()).toEqual([a1, a2].sort());
    expect(reports.pagination.total).toBe(2);
    expect(reports.stats).toMatchObject({ total: 2, failure: 1, gave_up: 1 });
    expect(reports.reports[0]!.issue_reason).toEqual(expect.any(String));

    const list = await call(issuesUrl(server, t, '?sort=count'), { headers: bearer(t.apiKey) });
    expect(list.status).toBe(200);
    const issues = IssueList.parse(list.body);
    expect(issues.pagination).toEqual({ page: 1, limit: 50, total: 3 });
    expect(issues.issues[0]).toMatchObject({
      id: i1,
      status: 'open',
      regressed_at: null,
      tool_name: 'search_issues',
      report_count: 2,
      sample_details: 'pagination broken, page 7 repeats 6',
    });
    expect(['failure', 'gave_up']).toContain(issues.issues[0]!.outcome);

    const filtered = IssueList.parse(
      (await call(issuesUrl(server, t, '?outcome=success'), { headers: bearer(t.apiKey) })).body,
    );
    expect(filtered.issues.map((i) => i.id)).toEqual([ic]);

    const detail = await call(issuesUrl(server, t, `/${i1}`), { headers: bearer(t.apiKey) });
    expect(detail.status).toBe(200);
    const issue = IssueDetail.parse(detail.body);
    expect(issue.outcome_counts).toEqual({
      success: 0,
      failure: 1,
      confusing: 0,
      gave_up: 1,
      request: 0,
    });
    expect(issue.sources).toEqual(
      expect.arrayContaining([
        { source: 'agent-a', count: 1 },
        { source: 'agent-b', count: 1 },
      ]),
    );
    expect(issue.clients).toEqual(
      expect.arrayContaining([
        { client: 'claude-code', count: 1 },
        { client: 'cursor', count: 1 },
      ]),
    );
    expect(issue.daily).toEqual([{ day: new Date().toISOString().slice(0, 10), count: 2 }]);
    expect(issue.note).toBeNull();
  });

  it('resolve, regress on a new report, ignore stays quiet, note', async () => {
    const t = await server.tenant();
    const key = await triageKey(server, t);
    const first = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'dates',
      details: 'Date format rejected: 2026-11-21',
    });
    const issueId = await issueOf(server, t, first);
    const patch = (body: unknown) =>
      call(issuesUrl(server, t, `/${issueId}`), { method: 'PATCH', body, headers: bearer(key) });

    const resolved = await patch({ status: 'resolved', note: 'fixed in v2' });
    expect(resolved.status).toBe(200);
    expect(IssueDetail.parse(resolved.body)).toMatchObject({
      status: 'resolved',
      note: 'fixed in v2',
      resolved_at: expect.any(String),
      regressed_at: null,
    });
    const openList = IssueList.parse(
      (await call(issuesUrl(server, t), { headers: bearer(t.apiKey) })).body,
    );
    expect(openList.issues).toEqual([]);

    const again = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'dates',
      details: 'date format rejected: 1999-01-01',
    });
    expect(await issueOf(server, t, again)).toBe(issueId);
    const reopened = IssueDetail.parse(
      (await call(issuesUrl(server, t, `/${issueId}`), { headers: bearer(t.apiKey) })).body,
    );
    expect(reopened).toMatchObject({ status: 'open', resolved_at: null, report_count: 2 });
    expect(reopened.regressed_at).toEqual(expect.any(String));

    expect((await patch({ status: 'ignored' })).status).toBe(200);
    const third = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'dates',
      details: 'date format rejected again',
    });
    expect(await issueOf(server, t, third)).toBe(issueId);
    const ignored = IssueDetail.parse(
      (await call(issuesUrl(server, t, `/${issueId}?`), { headers: bearer(t.apiKey) })).body,
    );
    expect(ignored).toMatchObject({ status: 'ignored', report_count: 3 });
    const all = IssueList.parse(
      (await call(issuesUrl(server, t, '?status=ignored'), { headers: bearer(t.apiKey) })).body,
    );
    expect(all.issues.map((i) => i.id)).toEqual([issueId]);

    const cleared = IssueDetail.parse((await patch({ note: null })).body);
    expect(cleared.note).toBeNull();
  });

  it('merges one issue into another, and moves a report out into a new issue that then attracts alike reports', async () => {
    const t = await server.tenant();
    const key = await triageKey(server, t);
    const x = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'q',
      details: 'timeout on query',
    });
    const y = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'q',
      details: 'slow response today',
    });
    const z = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'q',
      details: 'slow response today',
    });
    const [ix, iy] = [await issueOf(server, t, x), await issueOf(server, t, y)];
    expect(await issueOf(server, t, z)).toBe(iy);
    expect(ix).not.toBe(iy);

    const merged = await call(issuesUrl(server, t, `/${iy}/merge`), {
      body: { into: ix },
      headers: bearer(key),
    });
    expect(merged.status).toBe(200);
    expect(IssueDetail.parse(merged.body)).toMatchObject({ id: ix, report_count: 3 });
    expect((await call(issuesUrl(server, t, `/${iy}`), { headers: bearer(key) })).status).toBe(404);
    expect(await issueOf(server, t, y)).toBe(ix);
    await expectIssueDaysExact(server.ctx.db, t.projectId);

    // A report like the merged ones still lands in the merged issue (its candidate signature
    // is the target's, but the exemplar-free placeholder compares leading words): move z out.
    const moved = await call(`${server.url}/v1/dashboard/${t.projectId}/reports/${z}/move`, {
      body: { new_issue: true },
      headers: bearer(key),
    });
    expect(moved.status).toBe(200);
    const answer = MovedReport.parse(moved.body);
    expect(answer).toMatchObject({ ok: true, report_id: z, from_issue_id: ix });
    expect(answer.issue_id).not.toBe(ix);
    expect(await issueOf(server, t, z)).toBe(answer.issue_id);
    await expectIssueDaysExact(server.ctx.db, t.projectId);

    // Remembered: the next report like z follows it into the new issue.
    const w = await submit(server, t, {
      outcome: 'confusing',
      tool_name: 'q',
      details: 'Slow response, today!',
    });
    expect(await issueOf(server, t, w)).toBe(answer.issue_id);
    const target = IssueDetail.parse(
      (await call(issuesUrl(server, t, `/${answer.issue_id}`), { headers: bearer(key) })).body,
    );
    expect(target.report_count).toBe(2);
    const source = IssueDetail.parse(
      (await call(issuesUrl(server, t, `/${ix}`), { headers: bearer(key) })).body,
    );
    expect(source.report_count).toBe(2);

    // Moved back into an existing issue.
    const back = await call(`${server.url}/v1/dashboard/${t.projectId}/reports/${w}/move`, {
      body: { issue_id: ix },
      headers: bearer(key),
    });
    expect(MovedReport.parse(back.body)).toMatchObject({
      issue_id: ix,
      from_issue_id: answer.issue_id,
    });
    await expectIssueDaysExact(server.ctx.db, t.projectId);
  });

  it('streams event: issue when an issue is created, changes status and regresses', async () => {
    const t = await server.tenant();
    const key = await triageKey(server, t);
    const stream = await openSse(
      `${server.url}/v1/dashboard/${t.projectId}/events`,
      bearer(t.apiKey),
    );
    try {
      await stream.waitFor((e) => e.event === 'ready', 10_000, 'ready');
      const id = await submit(server, t, {
        outcome: 'failure',
        tool_name: 'sse',
        details: 'broken stream',
      });
      const created = await stream.waitFor((e) => e.event === 'issue', 10_000, 'issue created');
      const event = IssueEvent.parse(JSON.parse(created.data));
      expect(event).toMatchObject({
        change: 'created',
        issue: { tool_name: 'sse', status: 'open' },
      });
      expect(created.id).toBeNull();
      expect(await issueOf(server, t, id)).toBe(event.issue.id);

      await call(issuesUrl(server, t, `/${event.issue.id}`), {
        method: 'PATCH',
        body: { status: 'resolved' },
        headers: bearer(key),
      });
      const status = await stream.waitFor(
        (e) => e.event === 'issue' && JSON.parse(e.data).change === 'status',
        3000,
        'status event',
      );
      expect(IssueEvent.parse(JSON.parse(status.data)).issue.status).toBe('resolved');

      await submit(server, t, { outcome: 'failure', tool_name: 'sse', details: 'Broken stream.' });
      const regressed = await stream.waitFor(
        (e) => e.event === 'issue' && JSON.parse(e.data).change === 'regressed',
        3000,
        'regressed event',
      );
      expect(IssueEvent.parse(JSON.parse(regressed.data)).issue).toMatchObject({
        id: event.issue.id,
        status: 'open',
        regressed_at: expect.any(String),
      });
    } finally {
      stream.close();
    }
  });
});
