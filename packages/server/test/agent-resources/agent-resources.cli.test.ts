import { ProjectList, ReportList } from '@debrief/protocol';
import { describe, expect, it } from 'vitest';
import { bootstrapCli, startCliServer } from '../../../../test/harness/cli-process.js';
import { createTestDatabase, DIALECTS } from '../../../../test/harness/databases.js';
import { freePort } from '../../../../test/harness/ports.js';
import { bearer, call } from '../support/http.js';
import { fillPlaceholders, runLikeAnAgent, selfFeedbackCurl } from '../support/skill-agent.js';

describe.each(DIALECTS)('operator bootstraps with the CLI, then serves, on %s', (dialect) => {
  it('has the Debrief project from the start, and an agent reports to it from /skill.md', async () => {
    const database = await createTestDatabase(dialect);
    const port = await freePort();
    const env = {
      DATABASE_URL: database.url,
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
    };
    const operator = await bootstrapCli(env, { email: 'ops@example.test', project: 'My tool' });
    const server = await startCliServer(env);
    try {
      // Created at start: the operator sees it before any agent has read /skill.md.
      const before = ProjectList.parse(
        (await call(`${server.url}/v1/projects`, { headers: bearer(operator.api_key) })).body,
      );
      expect(before.map((p) => p.name)).toEqual(['My tool', 'Debrief (this instance)']);

      const markdown = await (await fetch(`${server.url}/skill.md`)).text();
      const command = fillPlaceholders(selfFeedbackCurl(markdown), {
        outcome: 'success',
        tool_name: '',
        details: 'Sent this report by following /skill.md word for word.',
      });
      const answer = (await runLikeAnAgent(command)) as { ok: boolean; id: string };
      expect(answer.ok).toBe(true);
      const list = ReportList.parse(
        (
          await call(`${server.url}/v1/dashboard/${before[1]!.id}/reports`, {
            headers: bearer(operator.api_key),
          })
        ).body,
      );
      expect(list.reports.map((r) => [r.id, r.source, r.tool_name])).toEqual([
        [answer.id, 'debrief', null],
      ]);
    } finally {
      await server.kill('SIGTERM');
      await database.drop();
    }
  });
});
