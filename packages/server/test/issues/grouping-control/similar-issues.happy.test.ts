import { IssueList, MovedReport, RejectedSimilar, SimilarIssues } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../../test/harness/test-server.js';
import { bearer, call } from '../../support/http.js';
import { issueOf, issuesUrl, submit, triageKey } from '../../support/issues-helpers.js';

/**
 * Similar-issue suggestions: an issue split off from another by hand is the same problem, so it
 * is suggested with a score and the words both share, flagged in the list as a possible
 * duplicate of the larger one, and never suggested again once rejected.
 */
describe.each(DIALECTS)('similar issues on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  it('suggests the same problem with a score and a reason, flags it, forgets it when rejected', async () => {
    const t = await server.tenant();
    const key = await triageKey(server, t);
    const details = [
      'Checkout failed: the payment gateway answered card_declined for a valid test card',
      'checkout failed, payment gateway said card_declined although the test card is valid',
      'Checkout failed: payment gateway card_declined on the valid test card again',
    ];
    const ids: string[] = [];
    for (const text of details)
      ids.push(
        await submit(server, t, { outcome: 'failure', tool_name: 'checkout', details: text }),
      );
    const unrelated = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'checkout',
      details: 'The shipping address form drops the postcode of Irish addresses',
    });
    const main = await issueOf(server, t, ids[0]!);
    expect(await issueOf(server, t, ids[1]!)).toBe(main);
    const other = await issueOf(server, t, unrelated);
    // A developer splits one report off: two issues of one problem.
    const moved = MovedReport.parse(
      (
        await call(`${server.url}/v1/dashboard/${t.projectId}/reports/${ids[2]}/move`, {
          body: { new_issue: true },
          headers: bearer(key),
        })
      ).body,
    );
    const split = moved.issue_id;

    const res = await call(issuesUrl(server, t, `/${main}/similar`), {
      headers: bearer(t.apiKey),
    });
    expect(res.status).toBe(200);
    const similar = SimilarIssues.parse(res.body);
    expect(similar.similar[0]?.issue.id).toBe(split);
    expect(similar.similar[0]?.score).toBeGreaterThan(0.3);
    // The words both share when the engine names them; its similarity either way.
    expect(similar.similar[0]?.reason).toMatch(/^\d\.\d\d similar/);
    expect(similar.similar.map((s) => s.issue.id)).not.toContain(other);

    const list = IssueList.parse(
      (await call(issuesUrl(server, t, '?status=all'), { headers: bearer(t.apiKey) })).body,
    );
    const byId = new Map(list.issues.map((i) => [i.id, i]));
    expect(byId.get(split)?.possible_duplicate_of).toBe(main);
    expect(byId.get(main)?.possible_duplicate_of).toBeNull();
    expect(byId.get(other)?.possible_duplicate_of).toBeNull();

    const rejected = await call(issuesUrl(server, t, `/${split}/similar/reject`), {
      body: { issue_id: main },
      headers: bearer(key),
    });
    expect(rejected.status).toBe(200);
    expect(RejectedSimilar.parse(rejected.body).rejected_issue_id).toBe(main);
    const after = SimilarIssues.parse(
      (await call(issuesUrl(server, t, `/${main}/similar`), { headers: bearer(t.apiKey) })).body,
    );
    expect(after.similar.map((s) => s.issue.id)).not.toContain(split);
    const listAfter = IssueList.parse(
      (await call(issuesUrl(server, t, '?status=all'), { headers: bearer(t.apiKey) })).body,
    );
    expect(listAfter.issues.find((i) => i.id === split)?.possible_duplicate_of).toBeNull();

    // A read key cannot reject; an unknown issue is a 404.
    const readOnly = await call(issuesUrl(server, t, `/${split}/similar/reject`), {
      body: { issue_id: main },
      headers: bearer(t.apiKey),
    });
    expect(readOnly.status).toBe(403);
    const unknown = await call(issuesUrl(server, t, `/${'0'.repeat(32)}/similar`), {
      headers: bearer(t.apiKey),
    });
    expect(unknown.status).toBe(404);
  });
});
