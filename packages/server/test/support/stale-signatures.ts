import type { Kysely } from 'kysely';
import type { Tenant, TestServer } from '../../../../test/harness/test-server.js';
import type { DB } from '../../src/db/schema.js';
import { fingerprint, mergeSignatures } from '../../src/issues/grouping/index.js';
import { bumpIssuesVersion } from '../../src/issues/pipeline/grouping.repository.js';
import { SignatureRefresh } from '../../src/issues/pipeline/signature-refresh.js';
import { issueOf, submit } from './issues-helpers.js';

/** Helpers of the tests of the signature refresh: stored signatures as an older release left them. */

export const TOOL = 'create_ticket';
/** Three reports of one problem, naming a field in camelCase (a code term since TERMS_VERSION 2). */
export const PROBLEM = [
  'I passed the id from list_users as assigneeId and create_ticket rejected it: must be a user id.',
  'create_ticket refused assigneeId taken from list_users, says it is not a user id.',
  'assigneeId (copied from list_users) was rejected by create_ticket: expected a user id.',
];
/**
 * The issue of PROBLEM as the release before TERMS_VERSION 2 stored it: its engine's
 * signature of the three reports (camelCase split into words, no `#assignee_id`).
 */
export const OLD_RULES_SIGNATURE = JSON.stringify({
  version: 1,
  kind: 'problem',
  tool: TOOL,
  members: 3,
  terms: {
    '#list_users': 3,
    assigne: 3,
    copi: 1,
    expect: 1,
    list: 3,
    pass: 1,
    refus: 1,
    reject: 2,
    say: 1,
    taken: 1,
    user: 3,
  },
});
/** A signature no rules make: what a stale row holds in the tests that need no particular one. */
export const STALE = (members: number) =>
  JSON.stringify({ version: 1, kind: 'problem', tool: TOOL, members, terms: { stale: members } });

export const problem = (details: string) => ({ outcome: 'failure', tool_name: TOOL, details });

/** What grouping `reports` (in report order) one by one into one issue gives it. */
export function groupedAfresh(
  reports: readonly { outcome: string; tool_name: string | null; details: string }[],
) {
  return reports.map((report) => fingerprint(report)).reduce(mergeSignatures);
}

/** An issue's reports in report order. */
export async function reportsOf(db: Kysely<DB>, issueId: string) {
  return db
    .selectFrom('report_issues')
    .innerJoin('reports', 'reports.id', 'report_issues.report_id')
    .select(['reports.outcome', 'reports.tool_name', 'reports.details'])
    .where('report_issues.issue_id', '=', issueId)
    .orderBy('report_issues.created_at')
    .orderBy('report_issues.report_id')
    .execute();
}

/** As the older release left it: the issue's signature, under the lock the grouper's cache follows. */
export async function makeStale(db: Kysely<DB>, issueId: string, signature: string) {
  await db.transaction().execute(async (trx) => {
    await bumpIssuesVersion(trx);
    await trx
      .updateTable('issues')
      .set({ signature, terms_version: 1 })
      .where('id', '=', issueId)
      .execute();
  });
}

/** Refresh rounds until one says nothing is stale; how many wrote something. */
export async function refreshAll(server: TestServer, refresh = new SignatureRefresh()) {
  let writing = 0;
  for (let round = 0; round < 200; round++) {
    const result = await refresh.round(server.ctx.db, server.ctx.database.dialect);
    if (result.refreshed > 0) writing += 1;
    if (result.done) return writing;
  }
  throw new Error('the refresh did not end within 200 rounds');
}

export async function submitAll(server: TestServer, t: Tenant, texts: readonly string[]) {
  const ids: string[] = [];
  for (const details of texts) ids.push(await submit(server, t, problem(details)));
  const issues = await Promise.all(ids.map((id) => issueOf(server, t, id)));
  return { ids, issues };
}
