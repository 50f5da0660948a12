import { IssueDetail, SubmitReportResponse } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';
import { issueOf, issuesUrl, submit, triageKey } from '../support/issues-helpers.js';

/**
 * The submit answer's `issue` (issues/agent-loop/): an agent whose report joins an issue with an
 * agent note, or a resolved or ignored one, is told so; every other answer stays `{ok, id}`.
 * The wait is generous here (ISSUE_ANSWER_WAIT_MS), so a busy test machine does not miss it.
 */
describe.each(DIALECTS)('the submit answer on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, { ISSUE_ANSWER_WAIT_MS: '5000' });
  });
  afterAll(() => server.close());

  const send = async (
    t: Tenant,
    body: { outcome: string; details: string; tool_name?: string },
  ) => {
    const res = await call(`${server.url}/v1/reports`, {
      body: { ingest_key: t.ingestKey, ...body },
    });
    expect(res.status).toBe(201);
    return SubmitReportResponse.parse(res.body);
  };

  /** A tenant with one issue (of one report) and a triage key to change it. */
  async function withIssue() {
    const t = await server.tenant();
    const key = await triageKey(server, t);
    const first = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'list_orders',
      details: 'Pagination broken: cursor= returns page 1 again',
    });
    const issueId = await issueOf(server, t, first);
    const patch = async (body: unknown) => {
      const res = await call(issuesUrl(server, t, `/${issueId}`), {
        method: 'PATCH',
        body,
        headers: bearer(key),
      });
      expect(res.status).toBe(200);
      return IssueDetail.parse(res.body);
    };
    return { t, issueId, patch };
  }

  const again = {
    outcome: 'failure',
    tool_name: 'list_orders',
    details: 'pagination broken, cursor= gives page 1 again',
  };

  it('tells the agent the note of the issue its report joined, and it is that issue', async () => {
    const { t, issueId, patch } = await withIssue();
    const note = 'Use page= instead of cursor= until 2.3.';
    expect(await patch({ agent_note: note })).toMatchObject({ agent_note: note, note: null });

    const answer = await send(t, again);
    expect(answer).toEqual({
      ok: true,
      id: expect.any(String),
      redactions: 0,
      issue: { id: issueId, status: 'open', agent_note: note },
    });
    // The issue named is the one grouping placed the report in.
    expect(await issueOf(server, t, answer.id)).toBe(issueId);
  });

  it('answers every one of many reports of a noted problem sent at once', async () => {
    const { t, issueId, patch } = await withIssue();
    await patch({ agent_note: 'Use page= until 2.3.' });
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        send(t, { ...again, details: `${again.details} (attempt ${i})` }),
      ),
    );
    for (const answer of answers) {
      expect(answer.issue).toEqual({
        id: issueId,
        status: 'open',
        agent_note: 'Use page= until 2.3.',
      });
    }
    const placed = await Promise.all(answers.map((a) => issueOf(server, t, a.id)));
    expect(new Set(placed)).toEqual(new Set([issueId]));
  });

  it('tells the status of a resolved issue (the report then reopens it) and of an ignored one', async () => {
    const { t, issueId, patch } = await withIssue();
    await patch({ status: 'resolved', note: 'private: the fix was in the cache layer' });
    const answer = await send(t, again);
    expect(answer.issue).toEqual({ id: issueId, status: 'resolved' });
    expect(JSON.stringify(answer)).not.toContain('private');
    expect(await issueOf(server, t, answer.id)).toBe(issueId);
    const detail = await call(issuesUrl(server, t, `/${issueId}`), { headers: bearer(t.apiKey) });
    expect(IssueDetail.parse(detail.body)).toMatchObject({ status: 'open' });

    // Reopened by that report (a regression, announced on the bus): the next report is told
    // the issue is open again, and nothing more, for it has no agent note.
    await expect.poll(async () => (await send(t, again)).issue ?? null).toBeNull();

    await patch({ status: 'ignored', agent_note: 'Not planned: list_orders is deprecated.' });
    expect((await send(t, again)).issue).toEqual({
      id: issueId,
      status: 'ignored',
      agent_note: 'Not planned: list_orders is deprecated.',
    });
  });

  it('answers {ok, id} alone for an open issue without a note, another problem, a cleared note', async () => {
    const { t, issueId, patch } = await withIssue();
    expect((await send(t, again)).issue).toBeUndefined();

    await patch({ agent_note: 'Upgrade to 2.3.' });
    const other = await send(t, {
      outcome: 'failure',
      tool_name: 'list_orders',
      details: 'Permission denied for warehouse 42',
    });
    expect(other.issue).toBeUndefined();
    expect(await issueOf(server, t, other.id)).not.toBe(issueId);
    const otherTool = await send(t, { ...again, tool_name: 'get_order' });
    expect(otherTool.issue).toBeUndefined();

    expect(await patch({ agent_note: '' })).toMatchObject({ agent_note: null });
    expect((await send(t, again)).issue).toBeUndefined();
  });

  it('keeps the agent note apart from the private note in the read API', async () => {
    const { t, issueId, patch } = await withIssue();
    await patch({ note: 'private', agent_note: 'public to agents' });
    const res = await call(issuesUrl(server, t, `/${issueId}`), { headers: bearer(t.apiKey) });
    expect(IssueDetail.parse(res.body)).toMatchObject({
      note: 'private',
      agent_note: 'public to agents',
    });
    expect(await patch({ note: null })).toMatchObject({
      note: null,
      agent_note: 'public to agents',
    });
  });

  it('costs a project with nothing to tell no wait: its answer is known at once', async () => {
    const t = await server.tenant();
    const id = await submit(server, t, { outcome: 'failure', details: 'Timeout on export' });
    const report = {
      id,
      projectId: t.projectId,
      outcome: 'failure',
      toolName: null,
      source: null,
      details: 'Timeout on export',
      metadata: null,
    };
    const answers = server.ctx.issueAnswers;
    if (!answers) throw new Error('grouping is on: answers are made');
    // The project's list is read once (the first report after a start may wait for that) …
    await answers.answer(report);
    // … and then a project without answerable issues is answered synchronously.
    expect(answers.answer(report)).toBeNull();
  });
});
