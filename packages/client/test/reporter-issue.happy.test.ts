import { createReader, createReporter } from '@debrief/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';

describe('createReporter passes on what the developer knows of the issue', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { ISSUE_ANSWER_WAIT_MS: '5000' });
  });
  afterAll(() => server.close());

  it('resolves { ok, id, attempts, issue } when the report joins an issue with an agent note', async () => {
    const t = await server.tenant();
    const reporter = createReporter({ ingestKey: t.ingestKey, baseUrl: server.url });
    const report = {
      outcome: 'failure',
      tool_name: 'list_orders',
      details: 'Pagination broken: cursor= returns page 1 again',
    } as const;
    const first = await reporter.report(report);
    if (!first.ok) throw new Error('the first report was refused');
    expect(first).not.toHaveProperty('issue');
    // The developer's note, written as triage does (the server's own tests cover the PATCH).
    const reader = createReader({ apiKey: t.apiKey, baseUrl: server.url });
    let issueId: string | null = null;
    while (issueId === null) {
      issueId = (await reader.getReports(t.projectId)).reports[0]?.issue_id ?? null;
      if (issueId === null) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await server.ctx.db
      .updateTable('issues')
      .set({ agent_note: 'Use page= until 2.3.' })
      .where('id', '=', issueId)
      .execute();
    server.ctx.answerableIssues.invalidate(t.projectId);

    expect(await reporter.report(report)).toEqual({
      ok: true,
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      attempts: 1,
      issue: { id: issueId, status: 'open', agent_note: 'Use page= until 2.3.' },
    });
  });
});
