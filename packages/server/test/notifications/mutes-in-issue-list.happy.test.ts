import { IssueList } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';
import { triageKey } from '../support/issues-helpers.js';
import { seedIssue } from '../support/seed-issue.js';

const DESTINATION = `${'0'.repeat(31)}1`;

/** The issues list says which issues a mute silences now, so the dashboard can mark them. */
describe.each(DIALECTS)('muted issues in the issues list (%s)', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(async () => {
    await server.close();
  });

  it('marks the issues muted now, for all destinations or one, and not those whose mute ended', async () => {
    const t = await server.tenant();
    const now = [new Date()];
    const [everywhere, oneDestination, ended, never] = [
      await seedIssue(server.ctx.db, t.projectId, { at: now }),
      await seedIssue(server.ctx.db, t.projectId, { at: now }),
      await seedIssue(server.ctx.db, t.projectId, { at: now }),
      await seedIssue(server.ctx.db, t.projectId, { at: now }),
    ];
    const triage = bearer(await triageKey(server, t));
    const mute = (issueId: string, body: object) =>
      call(`${server.url}/v1/dashboard/${t.projectId}/issues/${issueId}/mutes`, {
        body,
        headers: triage,
      });
    expect((await mute(everywhere, { hours: 24 })).status).toBe(201);
    expect((await mute(oneDestination, { destination_id: DESTINATION })).status).toBe(201);
    expect((await mute(ended, { reports: 1 })).status).toBe(201);
    // One more report: the mute "until 1 more report" has ended.
    await server.ctx.db
      .updateTable('issues')
      .set({ report_count: 2 })
      .where('id', '=', ended)
      .execute();

    const list = await call(`${server.url}/v1/dashboard/${t.projectId}/issues`, {
      headers: bearer(t.apiKey),
    });
    expect(list.status).toBe(200);
    const muted = Object.fromEntries(
      IssueList.parse(list.body).issues.map((issue) => [issue.id, issue.muted]),
    );
    expect(muted).toEqual({
      [everywhere]: true,
      [oneDestination]: true,
      [ended]: false,
      [never]: false,
    });
  });
});
