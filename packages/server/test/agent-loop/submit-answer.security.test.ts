import { SubmitReportResponse } from '@debrief/protocol';
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
 * What an ingest key can learn: the agent note and status of the issue its own report joined,
 * and nothing else about a project (issues/agent-loop/).
 */
describe.each(DIALECTS)('the submit answer on %s tells an ingest key nothing else', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect, { ISSUE_ANSWER_WAIT_MS: '5000' });
  });
  afterAll(() => server.close());

  const send = async (t: Tenant, body: object) => {
    const res = await call(`${server.url}/v1/reports`, {
      body: { ingest_key: t.ingestKey, ...body },
    });
    expect(res.status).toBe(201);
    return SubmitReportResponse.parse(res.body);
  };
  const failure = (details: string) => ({ outcome: 'failure', tool_name: 'list_orders', details });
  const TEXT = 'Pagination broken: cursor= returns page 1 again';

  async function notedIssue(t: Tenant, agentNote: string, note = 'private triage note') {
    const id = await issueOf(server, t, await submit(server, t, failure(TEXT)));
    const res = await call(issuesUrl(server, t, `/${id}`), {
      method: 'PATCH',
      body: { agent_note: agentNote, note, status: 'resolved' },
      headers: bearer(await triageKey(server, t)),
    });
    expect(res.status).toBe(200);
    return id;
  }

  it("never answers with another project's issue, however alike the report", async () => {
    const a = await server.tenant();
    const b = await server.tenant();
    await notedIssue(a, 'Only for project A');
    const answer = await send(b, failure(TEXT));
    expect(answer.issue).toBeUndefined();
    expect(JSON.stringify(answer)).not.toContain('project A');
  });

  it('answers with the note and status only: no title, counts, private note or other issue', async () => {
    const t = await server.tenant();
    const id = await notedIssue(t, 'Upgrade to 2.3.');
    const answer = await send(t, failure('pagination broken, cursor= gives page 1 again'));
    expect(Object.keys(answer).sort()).toEqual(['id', 'issue', 'ok', 'redactions']);
    expect(answer.issue).toEqual({ id, status: 'resolved', agent_note: 'Upgrade to 2.3.' });
    expect(JSON.stringify(answer)).not.toContain('private');
  });

  it('names only the issue the report was placed in, even when the guess points elsewhere', async () => {
    const t = await server.tenant();
    const key = await triageKey(server, t);
    const x = await issueOf(server, t, await submit(server, t, failure(TEXT)));
    const similar = `${TEXT} for customers`;
    const moved = await submit(server, t, failure(similar));
    expect(await issueOf(server, t, moved)).toBe(x);
    // A developer moves it to an issue of its own: reports like it follow it there (a pin),
    // where the answerable issue alone (x, with a note) would have taken them.
    const move = await call(`${server.url}/v1/dashboard/${t.projectId}/reports/${moved}/move`, {
      method: 'POST',
      body: { new_issue: true },
      headers: bearer(key),
    });
    expect(move.status).toBe(200);
    const y = move.body.issue_id as string;
    const noted = await call(issuesUrl(server, t, `/${x}`), {
      method: 'PATCH',
      body: { agent_note: 'Only for the first problem' },
      headers: bearer(key),
    });
    expect(noted.status).toBe(200);

    const answer = await send(t, failure(similar));
    expect(await issueOf(server, t, answer.id)).toBe(y);
    expect(answer.issue).toBeUndefined();
    // Whichever issue a report like the first is placed in (the pin may take it too), the
    // answer tells that one's note, or nothing.
    const first = await send(t, failure(TEXT));
    const placed = await issueOf(server, t, first.id);
    expect(first.issue).toEqual(
      placed === x
        ? { id: x, status: 'open', agent_note: 'Only for the first problem' }
        : undefined,
    );
  });

  it('an ingest key reads no issue, report or note through the read and triage API', async () => {
    const t = await server.tenant();
    const id = await notedIssue(t, 'Upgrade to 2.3.');
    const asIngest = bearer(t.ingestKey);
    for (const [method, url, body] of [
      ['GET', issuesUrl(server, t)],
      ['GET', issuesUrl(server, t, `/${id}`)],
      ['PATCH', issuesUrl(server, t, `/${id}`), { agent_note: 'overwritten' }],
      ['GET', `${server.url}/v1/dashboard/${t.projectId}/reports`],
      ['GET', `${server.url}/v1/projects`],
    ] as const) {
      const res = await call(url, { method, headers: asIngest, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${url}`).toBe(401);
      expect(res.body.code).toBe('ingest_key_cannot_read');
      expect(JSON.stringify(res.body)).not.toContain('Upgrade');
    }
    // An ingest key in a body is only ever a submission: the PATCH above changed nothing.
    expect((await send(t, failure(TEXT))).issue?.agent_note).toBe('Upgrade to 2.3.');
  });
});
