import { ProblemDetails } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../../test/harness/test-server.js';
import { bearer, call } from '../../support/http.js';
import { issueOf, submit, triageKey } from '../../support/issues-helpers.js';

/**
 * Another account's issues and rules are 404 to every grouping-control route, and a rule can
 * only send reports to an issue of its own project.
 */
describe.each(DIALECTS)('grouping control across accounts on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  it("answers 404 for another account's project, and refuses its issue as a rule's target", async () => {
    const owner = await server.tenant();
    const stranger = await server.tenant();
    const strangerKey = await triageKey(server, stranger);
    const ownerKey = await triageKey(server, owner);
    const issueId = await issueOf(
      server,
      owner,
      await submit(server, owner, { outcome: 'failure', tool_name: 'x', details: 'it broke' }),
    );
    const theirs = `${server.url}/v1/dashboard/${owner.projectId}`;
    const attempts = [
      call(`${theirs}/issues/${issueId}/similar`, { headers: bearer(strangerKey) }),
      call(`${theirs}/issues/${issueId}/merges`, { headers: bearer(strangerKey) }),
      call(`${theirs}/issues/${issueId}/unmerge`, { body: {}, headers: bearer(strangerKey) }),
      call(`${theirs}/issues/${issueId}/similar/reject`, {
        body: { issue_id: issueId },
        headers: bearer(strangerKey),
      }),
      call(`${theirs}/grouping-rules`, { headers: bearer(strangerKey) }),
      call(`${theirs}/grouping-rules`, {
        body: { type: 'never_join', name: 'x', tools: ['a', 'b'] },
        headers: bearer(strangerKey),
      }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(404);
      expect(ProblemDetails.parse(res.body).code).toBe('project_not_found');
    }
    // A rule of the stranger's own project cannot name the owner's issue.
    const crossed = await call(`${server.url}/v1/dashboard/${stranger.projectId}/grouping-rules`, {
      body: { type: 'route', name: 'steal', pattern: 'broke', issue_id: issueId },
      headers: bearer(strangerKey),
    });
    expect(crossed.status).toBe(400);
    expect(crossed.body.errors).toEqual([
      { field: 'issue_id', message: 'names no issue of this project' },
    ]);
    // The owner's rule id is unknown in the stranger's project.
    const rule = await call(`${theirs}/grouping-rules`, {
      body: { type: 'never_join', name: 'x', tools: ['a', 'b'] },
      headers: bearer(ownerKey),
    });
    expect(rule.status).toBe(201);
    const patch = await call(
      `${server.url}/v1/dashboard/${stranger.projectId}/grouping-rules/${rule.body.id}`,
      { method: 'PATCH', body: { name: 'mine' }, headers: bearer(strangerKey) },
    );
    expect(patch.status).toBe(404);
  });
});
