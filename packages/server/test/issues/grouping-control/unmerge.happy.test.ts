import { IssueDetail, MergedIssueList, ReportList, UnmergedIssue } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../../test/harness/test-server.js';
import { bearer, call } from '../../support/http.js';
import { expectIssueDaysExact } from '../../support/issue-days.js';
import { issueOf, issuesUrl, submit, triageKey } from '../../support/issues-helpers.js';

/**
 * Unmerge splits a merged issue back into the issues it was made of, exactly: each comes back
 * under its id with its title, status and note, with the reports it brought (and their reasons);
 * a report moved elsewhere since stays where it was put; merges of merges come apart in turn.
 */
describe.each(DIALECTS)('unmerge on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  it('gives back each merged issue with its reports, and only those still there', async () => {
    const t = await server.tenant();
    const key = await triageKey(server, t);
    const a1 = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'alpha',
      details: 'Export to CSV cuts every row after the first thousand',
    });
    const b1 = await submit(server, t, {
      outcome: 'confusing',
      tool_name: 'beta',
      details: 'The calendar shows meetings one hour late after the clock change',
    });
    const b2 = await submit(server, t, {
      outcome: 'confusing',
      tool_name: 'beta',
      details: 'The calendar shows meetings one hour late after the clock change',
    });
    const c1 = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'gamma',
      details: 'Image resize returns a black square for transparent PNG files',
    });
    const [a, b, c] = (await Promise.all([a1, b1, c1].map((id) => issueOf(server, t, id)))) as [
      string,
      string,
      string,
    ];
    expect(await issueOf(server, t, b2)).toBe(b);
    const reasonsBefore = await reasons(t, [b1, b2]);
    const patch = await call(issuesUrl(server, t, `/${b}`), {
      method: 'PATCH',
      body: { status: 'ignored', note: 'calendar team knows' },
      headers: bearer(key),
    });
    expect(patch.status).toBe(200);

    const rules = `${server.url}/v1/dashboard/${t.projectId}/grouping-rules`;
    const rule = await call(rules, {
      body: { type: 'route', name: 'clock change', pattern: 'clock change', issue_id: b },
      headers: bearer(key),
    });
    expect(rule.status).toBe(201);
    const ruleTarget = async () =>
      (await call(rules, { headers: bearer(key) })).body.rules.find(
        (r: { id: string }) => r.id === rule.body.id,
      )?.issue_id;

    const merge = (from: string, into: string) =>
      call(issuesUrl(server, t, `/${from}/merge`), { body: { into }, headers: bearer(key) });
    expect((await merge(b, a)).status).toBe(200);
    expect((await merge(c, a)).status).toBe(200);
    // The rule followed its issue.
    expect(await ruleTarget()).toBe(a);
    const merged = IssueDetail.parse(
      (await call(issuesUrl(server, t, `/${a}`), { headers: bearer(t.apiKey) })).body,
    );
    expect(merged.report_count).toBe(4);
    await expectIssueDaysExact(server.ctx.db, t.projectId);
    const listed = MergedIssueList.parse(
      (await call(issuesUrl(server, t, `/${a}/merges`), { headers: bearer(t.apiKey) })).body,
    );
    expect(listed.merged.map((m) => [m.id, m.report_count]).sort()).toEqual(
      [
        [b, 2],
        [c, 1],
      ].sort(),
    );

    // One of b's reports is moved out by hand: it stays where the developer put it.
    const moved = await call(`${server.url}/v1/dashboard/${t.projectId}/reports/${b2}/move`, {
      body: { new_issue: true },
      headers: bearer(key),
    });
    expect(moved.status).toBe(200);

    const res = await call(issuesUrl(server, t, `/${a}/unmerge`), {
      body: { issue_ids: [b] },
      headers: bearer(key),
    });
    expect(res.status).toBe(200);
    const unmerged = UnmergedIssue.parse(res.body);
    expect(unmerged.restored.map((i) => i.id)).toEqual([b]);
    expect(await ruleTarget()).toBe(b);
    const restored = IssueDetail.parse(
      (await call(issuesUrl(server, t, `/${b}`), { headers: bearer(t.apiKey) })).body,
    );
    expect(restored).toMatchObject({
      id: b,
      status: 'ignored',
      note: 'calendar team knows',
      tool_name: 'beta',
      report_count: 1,
    });
    expect(await issueOf(server, t, b1)).toBe(b);
    expect(await issueOf(server, t, b2)).toBe(moved.body.issue_id);
    expect((await reasons(t, [b1]))[0]).toBe(reasonsBefore[0]);
    const rest = IssueDetail.parse(
      (await call(issuesUrl(server, t, `/${a}`), { headers: bearer(t.apiKey) })).body,
    );
    expect(rest.report_count).toBe(2);
    await expectIssueDaysExact(server.ctx.db, t.projectId);

    // The rest: c comes back; nothing is left to split.
    const all = UnmergedIssue.parse(
      (await call(issuesUrl(server, t, `/${a}/unmerge`), { body: {}, headers: bearer(key) })).body,
    );
    expect(all.restored.map((i) => i.id)).toEqual([c]);
    expect(await issueOf(server, t, c1)).toBe(c);
    expect(await issueOf(server, t, a1)).toBe(a);
    const none = await call(issuesUrl(server, t, `/${a}/unmerge`), {
      body: {},
      headers: bearer(key),
    });
    expect(none.status).toBe(400);
    await expectIssueDaysExact(server.ctx.db, t.projectId);
  });

  it('undoes a merge of a merge one level at a time', async () => {
    const t = await server.tenant();
    const key = await triageKey(server, t);
    const ids = await Promise.all(
      [
        ['one', 'The login page loops back to itself after a correct password'],
        ['two', 'Search results are empty for queries with an apostrophe'],
        ['three', 'Webhook retries fire twice for every failed delivery'],
      ].map(([tool, details]) =>
        submit(server, t, { outcome: 'failure', tool_name: tool!, details: details! }),
      ),
    );
    const [x, y, z] = await Promise.all(ids.map((id) => issueOf(server, t, id)));
    const merge = (from: string, into: string) =>
      call(issuesUrl(server, t, `/${from}/merge`), { body: { into }, headers: bearer(key) });
    expect((await merge(x!, y!)).status).toBe(200);
    expect((await merge(y!, z!)).status).toBe(200);
    const first = UnmergedIssue.parse(
      (await call(issuesUrl(server, t, `/${z}/unmerge`), { body: {}, headers: bearer(key) })).body,
    );
    expect(first.restored.map((i) => [i.id, i.report_count])).toEqual([[y, 2]]);
    const second = UnmergedIssue.parse(
      (await call(issuesUrl(server, t, `/${y}/unmerge`), { body: {}, headers: bearer(key) })).body,
    );
    expect(second.restored.map((i) => [i.id, i.report_count])).toEqual([[x, 1]]);
    expect(await issueOf(server, t, ids[0]!)).toBe(x);
    await expectIssueDaysExact(server.ctx.db, t.projectId);
  });

  async function reasons(t: Parameters<typeof issueOf>[1], reportIds: string[]) {
    const res = await call(`${server.url}/v1/dashboard/${t.projectId}/reports?limit=100`, {
      headers: bearer(t.apiKey),
    });
    const reports = ReportList.parse(res.body).reports;
    return reportIds.map((id) => reports.find((r) => r.id === id)?.issue_reason);
  }
});
