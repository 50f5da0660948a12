import { ProjectList, ReportList } from '@debrief/protocol';
import { createApiKey, ensureAccount, rotateIngestKey } from '@debrief/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';
import { fillPlaceholders, runLikeAnAgent, selfFeedbackCurl } from '../support/skill-agent.js';

/** What an agent sees before scrolling: the first 25 lines. */
const firstScreen = (markdown: string) => markdown.split('\n').slice(0, 25).join('\n');

describe.each(DIALECTS)('an agent follows /skill.md literally on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  it('says feedback about Debrief is not set up while the instance has no account', async () => {
    const res = await fetch(`${server.url}/skill.md`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const text = await res.text();
    expect(text).toContain('Feedback about Debrief itself is not set up yet');
    expect(firstScreen(text)).toMatch(/About Debrief itself:.* not set up yet/);
    expect(text).not.toMatch(/wk_[0-9a-f]{32}/);
  });

  it('sends a report about Debrief that lands in the operator project with source debrief', async () => {
    const operator = await ensureAccount(server.ctx.db, {
      email: 'operator@example.test',
      password: null,
    });
    const markdown = await (await fetch(`${server.url}/skill.md`)).text();
    // The key is on the first screen, not only in the last section.
    const key = /"ingest_key": "(wk_[0-9a-f]{32})"/.exec(selfFeedbackCurl(markdown))![1]!;
    expect(firstScreen(markdown)).toContain(
      `to report about this Debrief instance itself (this document, its API or its dashboard), use ingest key \`${key}\` with \`"source": "debrief"\``,
    );
    const command = fillPlaceholders(selfFeedbackCurl(markdown), {
      outcome: 'confusing',
      tool_name: 'skill.md',
      details: "It's unclear whether tool_name is required; I sent it anyway. $HOME stays literal.",
    });
    expect(command).not.toMatch(/"<[^"]*>"/);
    const answer = (await runLikeAnAgent(command)) as { ok: boolean; id: string };
    expect(answer).toMatchObject({ ok: true, id: expect.stringMatching(/^[0-9a-f]{32}$/) });

    const apiKey = (await createApiKey(server.ctx.db, operator.id, 'test')).key;
    const projects = ProjectList.parse(
      (await call(`${server.url}/v1/projects`, { headers: bearer(apiKey) })).body,
    );
    expect(projects.map((p) => p.name)).toEqual(['Debrief (this instance)']);
    const list = ReportList.parse(
      (
        await call(`${server.url}/v1/dashboard/${projects[0]!.id}/reports`, {
          headers: bearer(apiKey),
        })
      ).body,
    );
    expect(list.reports).toHaveLength(1);
    expect(list.reports[0]).toMatchObject({
      id: answer.id,
      outcome: 'confusing',
      source: 'debrief',
      tool_name: 'skill.md',
      details: "It's unclear whether tool_name is required; I sent it anyway. $HOME stays literal.",
    });
  });

  it('carries the current key after the operator rotates it', async () => {
    const before = await (await fetch(`${server.url}/skill.md`)).text();
    const oldKey = /"ingest_key": "(wk_[0-9a-f]{32})"/.exec(selfFeedbackCurl(before))![1]!;
    const projectId = (
      await server.ctx.db
        .selectFrom('projects')
        .select('id')
        .where('name', '=', 'Debrief (this instance)')
        .executeTakeFirstOrThrow()
    ).id;
    const newKey = await rotateIngestKey(server.ctx.db, projectId);
    const after = await (await fetch(`${server.url}/skill.md`)).text();
    expect(after).toContain(newKey);
    expect(after).not.toContain(oldKey);
    // Only the public ingest key is published; the operator's secret API keys never are.
    expect(after).not.toMatch(/wk_sk_[0-9A-Za-z]{32,}/);
  });
});
