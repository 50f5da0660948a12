import { SubmitReportResponse } from '@debrief/protocol';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { bearer, call } from '../support/http.js';
import { issueOf, issuesUrl, submit, triageKey } from '../support/issues-helpers.js';

/**
 * The answer's wait is bounded: a report whose placement does not come in time gets the plain
 * `{ok, id}`, and is still stored and grouped later. On PostgreSQL, where grouping is the
 * background grouper's alone (on a SQLite file the writer groups what it moves, so a report is
 * never left waiting there), the grouper is stopped to hold the placement back.
 */
const postgres = DIALECTS.includes('postgres');
let server: TestServer;
beforeAll(async () => {
  if (postgres) server = await startTestServer('postgres', { ISSUE_ANSWER_WAIT_MS: '100' });
});
afterAll(() => server?.close());

it.skipIf(!postgres)('answers {ok, id} when the report is not placed within the wait', async () => {
  const t = await server.tenant();
  const failure = {
    outcome: 'failure',
    tool_name: 'list_orders',
    details: 'Pagination broken: cursor= returns page 1 again',
  };
  const issueId = await issueOf(server, t, await submit(server, t, failure));
  const patched = await call(issuesUrl(server, t, `/${issueId}`), {
    method: 'PATCH',
    body: { agent_note: 'Use page= until 2.3.' },
    headers: bearer(await triageKey(server, t)),
  });
  expect(patched.status).toBe(200);

  await server.ctx.grouper.stop();
  const res = await call(`${server.url}/v1/reports`, {
    body: { ingest_key: t.ingestKey, ...failure },
  });
  expect(res.status).toBe(201);
  const answer = SubmitReportResponse.parse(res.body);
  expect(answer.issue).toBeUndefined();

  // Stored all the same, and grouped once the grouper runs again.
  server.ctx.grouper.start();
  expect(await issueOf(server, t, answer.id)).toBe(issueId);
});
