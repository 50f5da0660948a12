import { IssueActivityList, IssueDetail, IssueList, MovedReport } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';
import { issueOf, issuesUrl, submit, triageKey } from '../support/issues-helpers.js';

/**
 * What the Issues view asks of the API, on every dialect: issues of one kind, a search of every
 * title (not the page shown), a rename that sticks, the metadata breakdowns, and the history of
 * each triage action with who did it.
 */
describe.each(DIALECTS)('the issues view API on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  const list = async (t: { apiKey: string }, url: string) => {
    const res = await call(url, { headers: bearer(t.apiKey) });
    expect(res.status).toBe(200);
    return IssueList.parse(res.body);
  };

  it('lists one kind of issue, and searches every title case-insensitively', async () => {
    const t = await server.tenant();
    const ids = await Promise.all([
      submit(server, t, {
        outcome: 'failure',
        tool_name: 'render_report',
        details: 'Output format ignored: asked for CSV and got JSON',
      }),
      submit(server, t, {
        outcome: 'confusing',
        tool_name: 'export_table',
        details: 'The 100% width option_name is undocumented',
      }),
      submit(server, t, {
        outcome: 'request',
        tool_name: 'render_report',
        details: 'Please add a Markdown output format',
      }),
      submit(server, t, {
        outcome: 'success',
        tool_name: 'lookup_city',
        details: 'Worked as documented',
      }),
    ]);
    await Promise.all(ids.map((id) => issueOf(server, t, id)));

    const problems = await list(t, issuesUrl(server, t, '?kind=problem'));
    expect(problems.issues.map((i) => i.tool_name).sort()).toEqual([
      'export_table',
      'render_report',
    ]);
    expect(problems.issues.every((i) => ['failure', 'confusing', 'gave_up'].includes(i.outcome)));
    const requests = await list(t, issuesUrl(server, t, '?kind=request'));
    expect(requests.issues.map((i) => i.outcome)).toEqual(['request']);
    const all = await list(t, issuesUrl(server, t));
    expect(all.pagination.total).toBe(4);

    const found = await list(
      t,
      issuesUrl(server, t, `?q=${encodeURIComponent('  OUTPUT format ')}`),
    );
    expect(found.pagination.total).toBe(2);
    expect(found.issues.map((i) => i.title.toLowerCase())).toEqual(
      expect.arrayContaining([expect.stringContaining('output format')]),
    );
    // With the other filters, and paged like the list.
    const narrowed = await list(t, issuesUrl(server, t, '?q=output%20format&kind=problem'));
    expect(narrowed.issues.map((i) => i.outcome)).toEqual(['failure']);
    const second = await list(t, issuesUrl(server, t, '?q=output%20format&limit=1&page=2'));
    expect(second.issues).toHaveLength(1);
    expect(second.pagination.total).toBe(2);
    // LIKE's wildcards are taken as typed: `%` and `_` match only themselves.
    expect((await list(t, issuesUrl(server, t, '?q=100%25'))).pagination.total).toBe(1);
    expect((await list(t, issuesUrl(server, t, '?q=option_name'))).pagination.total).toBe(1);
    expect((await list(t, issuesUrl(server, t, '?q=1_0'))).pagination.total).toBe(0);
    expect((await list(t, issuesUrl(server, t, '?q=%25%25%25'))).pagination.total).toBe(0);
    // With a date range too (the range list has its own statement).
    const ranged = await list(t, issuesUrl(server, t, '?q=OUTPUT&from=2000-01-01&kind=request'));
    expect(ranged.issues.map((i) => i.outcome)).toEqual(['request']);
    // Letters beyond ASCII fold too, on both dialects.
    const umlaut = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'dokumente',
      details: 'ÄRGER mit Umlauten: die Ausgabe ist falsch kodiert',
    });
    await issueOf(server, t, umlaut);
    for (const q of ['ärger', 'Ärger', 'ÄRGER', 'umlauten'])
      expect(
        (await list(t, issuesUrl(server, t, `?q=${encodeURIComponent(q)}`))).pagination.total,
      ).toBe(1);
    expect(
      (await list(t, issuesUrl(server, t, `?q=${encodeURIComponent('ärger')}&from=2000-01-01`)))
        .pagination.total,
    ).toBe(1);
    // A blank search is no search.
    expect((await list(t, issuesUrl(server, t, '?q=%20%20'))).pagination.total).toBe(5);
  });

  it('refuses a search longer than 200 characters and an unknown kind', async () => {
    const t = await server.tenant();
    const long = await call(issuesUrl(server, t, `?q=${'a'.repeat(201)}`), {
      headers: bearer(t.apiKey),
    });
    expect(long.status).toBe(400);
    expect(long.body.errors).toEqual([{ field: 'q', message: 'must be at most 200 characters' }]);
    const kind = await call(issuesUrl(server, t, '?kind=bug'), { headers: bearer(t.apiKey) });
    expect(kind.status).toBe(400);
    expect(kind.body.errors[0].field).toBe('kind');
  });

  it('renames an issue, and the name stays when reports keep joining', async () => {
    const t = await server.tenant();
    const key = await triageKey(server, t);
    const report = {
      outcome: 'failure',
      tool_name: 'send_mail',
      details: 'SMTP relay refused the message: 550 mailbox unavailable',
    };
    const issueId = await issueOf(server, t, await submit(server, t, report));
    const url = issuesUrl(server, t, `/${issueId}`);
    const renamed = await call(url, {
      method: 'PATCH',
      headers: bearer(key),
      body: { title: '  Mail relay refuses mailboxes  ' },
    });
    expect(renamed.status).toBe(200);
    expect(IssueDetail.parse(renamed.body).title).toBe('Mail relay refuses mailboxes');
    expect(await issueOf(server, t, await submit(server, t, report))).toBe(issueId);
    const after = IssueDetail.parse((await call(url, { headers: bearer(t.apiKey) })).body);
    expect(after.report_count).toBe(2);
    expect(after.title).toBe('Mail relay refuses mailboxes');

    const blank = await call(url, { method: 'PATCH', headers: bearer(key), body: { title: ' ' } });
    expect(blank.status).toBe(400);
    expect(blank.body.errors).toEqual([{ field: 'title', message: 'must not be blank' }]);
    const readOnly = await call(url, {
      method: 'PATCH',
      headers: bearer(t.apiKey),
      body: { title: 'x' },
    });
    expect(readOnly.status).toBe(403);
  });

  it('counts an issue’s reports per model and per client version', async () => {
    const t = await server.tenant();
    const base = { outcome: 'failure', tool_name: 'geo_code', details: 'Geocoder timed out' };
    const ids = [];
    for (const metadata of [
      { model: 'claude-sonnet', client_name: 'claude-code', client_version: '2.1.0' },
      { model: 'claude-sonnet', client_name: 'claude-code', client_version: '2.1.0' },
      { model: 'gpt-5', client_name: 'cursor', client_version: 1.7 },
      {},
    ])
      ids.push(await submit(server, t, { ...base, metadata }));
    const issueId = await issueOf(server, t, ids[3]!);
    for (const id of ids) expect(await issueOf(server, t, id)).toBe(issueId);
    const detail = IssueDetail.parse(
      (await call(issuesUrl(server, t, `/${issueId}`), { headers: bearer(t.apiKey) })).body,
    );
    expect(detail.models[0]).toEqual({ model: 'claude-sonnet', count: 2 });
    expect(detail.models).toEqual(
      expect.arrayContaining([
        { model: 'gpt-5', count: 1 },
        { model: null, count: 1 },
      ]),
    );
    expect(detail.client_versions[0]).toEqual({
      client: 'claude-code',
      version: '2.1.0',
      count: 2,
    });
    expect(detail.client_versions).toEqual(
      expect.arrayContaining([
        { client: 'cursor', version: '1.7', count: 1 },
        { client: null, version: null, count: 1 },
      ]),
    );
  });

  it('keeps a history of each triage action with who did it, newest first', async () => {
    const t = await server.tenant();
    const key = await triageKey(server, t);
    const a = await issueOf(
      server,
      t,
      await submit(server, t, { outcome: 'failure', tool_name: 'tool_a', details: 'A broke' }),
    );
    const movedReport = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'tool_b',
      details: 'B broke',
    });
    const b = await issueOf(server, t, movedReport);
    await submit(server, t, { outcome: 'failure', tool_name: 'tool_b', details: 'B broke' });
    const c = await issueOf(
      server,
      t,
      await submit(server, t, { outcome: 'failure', tool_name: 'tool_c', details: 'C broke' }),
    );
    const patch = (id: string, body: object) =>
      call(issuesUrl(server, t, `/${id}`), { method: 'PATCH', headers: bearer(key), body });
    expect((await patch(a, { status: 'resolved' })).status).toBe(200);
    expect((await patch(a, { status: 'resolved' })).status).toBe(200); // no change, no entry
    expect((await patch(a, { note: 'Fixed in 2.3' })).status).toBe(200);
    expect((await patch(a, { title: 'A breaks on Mondays' })).status).toBe(200);
    const move = await call(
      `${server.url}/v1/dashboard/${t.projectId}/reports/${movedReport}/move`,
      {
        headers: bearer(key),
        body: { issue_id: a },
      },
    );
    expect(MovedReport.parse(move.body).from_issue_id).toBe(b);
    const merge = await call(issuesUrl(server, t, `/${c}/merge`), {
      headers: bearer(key),
      body: { into: a },
    });
    expect(merge.status).toBe(200);

    const history = async (id: string) => {
      const res = await call(issuesUrl(server, t, `/${id}/activity`), {
        headers: bearer(t.apiKey),
      });
      expect(res.status).toBe(200);
      return IssueActivityList.parse(res.body);
    };
    const actor = { type: 'api_key', name: expect.stringMatching(/^triage \(wk_sk_\w+…\)$/) };
    const ofA = await history(a);
    expect(ofA.issue_id).toBe(a);
    expect(ofA.activity.map((e) => e.action)).toEqual([
      'merged',
      'report_moved_in',
      'renamed',
      'note',
      'status',
    ]);
    expect(ofA.activity[0]).toMatchObject({ actor, related_issue_id: c, from: 'C broke' });
    expect(ofA.activity[1]).toMatchObject({ related_issue_id: b, report_id: movedReport });
    expect(ofA.activity[2]).toMatchObject({ from: 'A broke', to: 'A breaks on Mondays' });
    expect(ofA.activity[3]).toMatchObject({ to: 'Fixed in 2.3', from: null });
    expect(ofA.activity[4]).toMatchObject({ actor, from: 'open', to: 'resolved' });
    expect(ofA.activity[4]!.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const ofB = await history(b);
    expect(ofB.activity).toEqual([
      expect.objectContaining({
        action: 'report_moved_out',
        related_issue_id: a,
        report_id: movedReport,
      }),
    ]);
    // The merged issue is gone: its history answers 404 like the issue.
    expect(
      (await call(issuesUrl(server, t, `/${c}/activity`), { headers: bearer(t.apiKey) })).status,
    ).toBe(404);
    // Another account never reads it.
    const other = await server.tenant();
    const foreign = await call(`${server.url}/v1/dashboard/${t.projectId}/issues/${a}/activity`, {
      headers: bearer(other.apiKey),
    });
    expect(foreign.status).toBe(404);
  });
});
