import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { ProjectList, ReportList } from '@debrief/protocol';
import { createApiKey, ensureAccount, rotateIngestKey } from '@debrief/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import { bearer, call } from './http.js';

const run = promisify(execFile);
const CURL = ['/usr/bin/curl', '/bin/curl', '/usr/local/bin/curl'].find((p) => existsSync(p));

/** The fenced bash block under the "Feedback about Debrief itself" heading, as an agent sees it. */
function selfFeedbackCurl(markdown: string): string {
  const section = markdown.split(/^## Feedback about Debrief itself$/m)[1];
  if (!section) throw new Error('no "Feedback about Debrief itself" section');
  const block = /```bash\n([\s\S]*?)\n```/.exec(section);
  if (!block) throw new Error('no bash block in the self-feedback section');
  return block[1]!;
}

/** What an agent does: replace each `<…>` placeholder in the JSON with its own words. */
function fillPlaceholders(command: string, values: Record<string, string>): string {
  return command.replace(/"([a-z_]+)": "<[^"]*>"/g, (whole, field: string) =>
    field in values ? `"${field}": ${JSON.stringify(values[field])}` : whole,
  );
}

/** Runs the command with the real curl through sh, or, without curl, sends the same request. */
async function runLikeAnAgent(command: string): Promise<unknown> {
  if (CURL) {
    const { stdout } = await run('sh', ['-c', command], { timeout: 15_000 });
    return JSON.parse(stdout);
  }
  const url = /curl .*?'([^']+)'/.exec(command)![1]!;
  const body = /<<'JSON'\n([\s\S]*?)\nJSON$/.exec(command)![1]!;
  return (await fetch(url, { method: 'POST', body })).json();
}

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
    expect(text).not.toMatch(/wk_[0-9a-f]{32}/);
  });

  it('sends a report about Debrief that lands in the operator project with source debrief', async () => {
    const operator = await ensureAccount(server.ctx.db, {
      email: 'operator@example.test',
      password: null,
    });
    const markdown = await (await fetch(`${server.url}/skill.md`)).text();
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
  });
});
