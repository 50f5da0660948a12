import { type Kysely, sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  DIALECTS,
  type TestDatabase,
} from '../../../../test/harness/databases.js';
import {
  startTestServer,
  type Tenant,
  type TestServer,
} from '../../../../test/harness/test-server.js';
import type { DB } from '../../src/db/schema.js';
import {
  fingerprint,
  mergeSignatures,
  parseSignature,
  serializeSignature,
  TERMS_VERSION,
} from '../../src/issues/grouping/index.js';
import { Grouper } from '../../src/issues/pipeline/grouper.js';
import { bumpIssuesVersion } from '../../src/issues/pipeline/grouping.repository.js';
import { SignatureRefresh } from '../../src/issues/pipeline/signature-refresh.js';
import { bearer, call } from '../support/http.js';
import { issueOf, issuesUrl, submit, triageKey } from '../support/issues-helpers.js';

/**
 * After an upgrade that changed how text becomes terms (TERMS_VERSION), the signatures stored
 * under the older rules are made again from their reports by the grouper, between batches: an
 * issue's centroid, a moved report's exemplar, a merge record's. Refreshed, an issue's
 * signature is what grouping its reports afresh gives; a report worded as only the new rules
 * read then joins it; a refresh is idempotent, ends, and a round that fails writes nothing.
 */

const TOOL = 'create_ticket';
/** Three reports of one problem, naming a field in camelCase (a code term since TERMS_VERSION 2). */
const PROBLEM = [
  'I passed the id from list_users as assigneeId and create_ticket rejected it: must be a user id.',
  'create_ticket refused assigneeId taken from list_users, says it is not a user id.',
  'assigneeId (copied from list_users) was rejected by create_ticket: expected a user id.',
];
/**
 * The issue of PROBLEM as the release before TERMS_VERSION 2 stored it: its engine's
 * signature of the three reports (camelCase split into words, no `#assignee_id`).
 */
const OLD_RULES_SIGNATURE = JSON.stringify({
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
const STALE = (members: number) =>
  JSON.stringify({ version: 1, kind: 'problem', tool: TOOL, members, terms: { stale: members } });

const problem = (details: string) => ({ outcome: 'failure', tool_name: TOOL, details });

/** What grouping `reports` (in report order) one by one into one issue gives it. */
function groupedAfresh(
  reports: readonly { outcome: string; tool_name: string | null; details: string }[],
) {
  return reports.map((report) => fingerprint(report)).reduce(mergeSignatures);
}

/** An issue's reports in report order. */
async function reportsOf(db: Kysely<DB>, issueId: string) {
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
async function makeStale(db: Kysely<DB>, issueId: string, signature: string) {
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
async function refreshAll(server: TestServer, refresh = new SignatureRefresh()) {
  let writing = 0;
  for (let round = 0; round < 200; round++) {
    const result = await refresh.round(server.ctx.db, server.ctx.database.dialect);
    if (result.refreshed > 0) writing += 1;
    if (result.done) return writing;
  }
  throw new Error('the refresh did not end within 200 rounds');
}

async function submitAll(server: TestServer, t: Tenant, texts: readonly string[]) {
  const ids: string[] = [];
  for (const details of texts) ids.push(await submit(server, t, problem(details)));
  const issues = await Promise.all(ids.map((id) => issueOf(server, t, id)));
  return { ids, issues };
}

describe.each(DIALECTS)('refreshing stale grouping signatures on %s', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(() => server.close());

  it('remakes stale issues, moved reports and merge records from their reports, once, and ends', async () => {
    const { db } = server.ctx;
    const t = await server.tenant();
    const key = await triageKey(server, t);
    const { issues } = await submitAll(server, t, PROBLEM);
    const issue = issues[0] as string;
    expect(new Set(issues)).toEqual(new Set([issue]));
    // A merge record: another tool's two issues, one merged into the other.
    const export1 = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'export',
      details: 'Export to CSV cuts every row after the first thousand',
    });
    const calendar = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'export',
      details: 'The calendar export shows meetings one hour late after the clock change',
    });
    const into = await issueOf(server, t, export1);
    const merged = await issueOf(server, t, calendar);
    expect(merged).not.toBe(into);
    const merge = await call(issuesUrl(server, t, `/${merged}/merge`), {
      body: { into },
      headers: bearer(key),
    });
    expect(merge.status).toBe(200);
    // A moved report: the third report of the problem, out into an issue of its own.
    const third = (
      await db
        .selectFrom('report_issues')
        .select('report_id')
        .where('issue_id', '=', issue)
        .orderBy('created_at', 'desc')
        .orderBy('report_id', 'desc')
        .executeTakeFirstOrThrow()
    ).report_id;
    const moved = await call(`${server.url}/v1/dashboard/${t.projectId}/reports/${third}/move`, {
      body: { new_issue: true },
      headers: bearer(key),
    });
    expect(moved.status).toBe(200);

    // As the release before left them: every signature of the project under older rules.
    const projectIssues = await db
      .selectFrom('issues')
      .select(['id', 'report_count'])
      .where('project_id', '=', t.projectId)
      .execute();
    for (const row of projectIssues) await makeStale(db, row.id, STALE(Number(row.report_count)));
    await db
      .updateTable('issue_exemplars')
      .set({ signature: STALE(1), terms_version: 1 })
      .where('project_id', '=', t.projectId)
      .execute();
    await db
      .updateTable('issue_merges')
      .set({ signature: STALE(1), terms_version: 1 })
      .where('project_id', '=', t.projectId)
      .execute();

    // The grouper's own round, as it runs between batches, says when it begins and ends.
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const grouper = new Grouper({
      db,
      dialect: server.ctx.database.dialect,
      bus: server.ctx.bus,
      log,
    });
    for (let round = 0; round < 200 && !lines.some((l) => l.includes('refreshed the')); round++)
      await grouper.refreshSignatures();
    expect(lines.some((line) => line.includes('refreshing the grouping signatures'))).toBe(true);
    expect(lines.find((line) => line.includes('refreshed the'))).toMatch(/"refreshed":\d+/);

    const after = await db
      .selectFrom('issues')
      .select(['id', 'signature', 'terms_version'])
      .where('project_id', '=', t.projectId)
      .execute();
    expect(after.length).toBe(projectIssues.length);
    for (const row of after) {
      expect(row.terms_version).toBe(TERMS_VERSION);
      expect(parseSignature(row.signature)).toEqual(groupedAfresh(await reportsOf(db, row.id)));
    }
    const exemplar = await db
      .selectFrom('issue_exemplars')
      .innerJoin('reports', 'reports.id', 'issue_exemplars.report_id')
      .select(['issue_exemplars.signature', 'issue_exemplars.terms_version', 'reports.details'])
      .where('issue_exemplars.project_id', '=', t.projectId)
      .executeTakeFirstOrThrow();
    expect(exemplar.terms_version).toBe(TERMS_VERSION);
    expect(exemplar.signature).toBe(serializeSignature(fingerprint(problem(exemplar.details))));
    const record = await db
      .selectFrom('issue_merges')
      .select(['signature', 'terms_version'])
      .where('project_id', '=', t.projectId)
      .executeTakeFirstOrThrow();
    expect(record.terms_version).toBe(TERMS_VERSION);
    expect(parseSignature(record.signature)).toEqual(
      fingerprint({
        outcome: 'failure',
        tool_name: 'export',
        details: 'The calendar export shows meetings one hour late after the clock change',
      }),
    );

    // Idempotent: nothing is stale, nothing is written again.
    const snapshot = await db.selectFrom('issues').select(['id', 'signature']).execute();
    expect(await new SignatureRefresh().round(db, server.ctx.database.dialect)).toEqual({
      refreshed: 0,
      done: true,
    });
    expect(await db.selectFrom('issues').select(['id', 'signature']).execute()).toEqual(snapshot);
  });

  it('lets a report worded as only the new rules read join its refreshed issue, where the stale one opened a new issue', async () => {
    const { db } = server.ctx;
    const report = problem('create_ticket rejects assigneeId: it is not a user id.');
    const before = await server.tenant();
    const after = await server.tenant();
    const stale = await submitAll(server, before, PROBLEM);
    const refreshed = await submitAll(server, after, PROBLEM);
    for (const { issues } of [stale, refreshed]) {
      expect(new Set(issues).size).toBe(1);
      await makeStale(db, issues[0] as string, OLD_RULES_SIGNATURE);
    }
    // While stale, the new report's `#assignee_id` is a field the issue never named.
    const opened = await issueOf(server, before, await submit(server, before, report));
    expect(opened).not.toBe(stale.issues[0]);

    await refreshAll(server);
    const joined = await issueOf(server, after, await submit(server, after, report));
    expect(joined).toBe(refreshed.issues[0]);
    const signature = await db
      .selectFrom('issues')
      .select('signature')
      .where('id', '=', joined)
      .executeTakeFirstOrThrow();
    expect(parseSignature(signature.signature).terms['#assignee_id']).toBe(4);
  });

  it('writes nothing of a round that fails, and finishes after', async () => {
    const { db } = server.ctx;
    const t = await server.tenant();
    const { issues } = await submitAll(server, t, [PROBLEM[0] as string]);
    const other = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'export',
      details: 'Export to CSV cuts every row after the first thousand',
    });
    const older = issues[0] as string;
    const newer = await issueOf(server, t, other);
    for (const id of [older, newer]) await makeStale(db, id, STALE(1));
    // The round writes the newer issue first, then fails on the older: as a crash would stop it.
    await crashOnUpdate(db, dialect, older);
    try {
      await expect(new SignatureRefresh().round(db, dialect)).rejects.toThrow(/crash mid-refresh/);
    } finally {
      await dropCrash(db, dialect);
    }
    const stillStale = await db
      .selectFrom('issues')
      .select(['signature', 'terms_version'])
      .where('id', 'in', [older, newer])
      .execute();
    expect(stillStale).toEqual([
      { signature: STALE(1), terms_version: 1 },
      { signature: STALE(1), terms_version: 1 },
    ]);

    await refreshAll(server);
    for (const id of [older, newer]) {
      const row = await db
        .selectFrom('issues')
        .select(['signature', 'terms_version'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(row.terms_version).toBe(TERMS_VERSION);
      expect(parseSignature(row.signature)).toEqual(groupedAfresh(await reportsOf(db, id)));
    }
  });

  it('remakes under the lock an issue a report joined while its reports were read', async () => {
    const { db } = server.ctx;
    const t = await server.tenant();
    const { issues } = await submitAll(server, t, PROBLEM.slice(0, 2));
    const id = issues[0] as string;
    // Stale by its stamp only: a report of the problem still joins it.
    const current = await db
      .selectFrom('issues')
      .select('signature')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    await makeStale(db, id, current.signature);
    const refresh = new SignatureRefresh();
    const plan = await refresh.plan(db);
    expect(plan?.rows.map((row) => row.id)).toContain(id);
    // A report joins the issue between the read of its reports and the write.
    const joining = await submit(server, t, problem(PROBLEM[2] as string));
    expect(await issueOf(server, t, joining)).toBe(id);
    expect(await refresh.apply(db, dialect, plan as NonNullable<typeof plan>)).toMatchObject({
      refreshed: plan?.rows.length,
    });
    const row = await db
      .selectFrom('issues')
      .select(['signature', 'terms_version'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.terms_version).toBe(TERMS_VERSION);
    const reports = await reportsOf(db, id);
    expect(reports.length).toBe(3);
    expect(parseSignature(row.signature)).toEqual(groupedAfresh(reports));
  });

  it('remakes an issue of more reports than the bound from its most recent ones', async () => {
    const { db } = server.ctx;
    const t = await server.tenant();
    const { issues } = await submitAll(server, t, PROBLEM);
    const id = issues[0] as string;
    await makeStale(db, id, STALE(3));
    await refreshAll(server, new SignatureRefresh(TERMS_VERSION, 2));
    const row = await db
      .selectFrom('issues')
      .select('signature')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    const signature = parseSignature(row.signature);
    expect(signature.members).toBe(2);
    expect(signature).toEqual(groupedAfresh((await reportsOf(db, id)).slice(1)));
  });
});

describe.each(DIALECTS)('after an upgrade on %s', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect, { migrated: true });
  });
  afterAll(() => database.drop());

  it('the grouping thread refreshes the stale signatures by itself once the server starts', async () => {
    const first = await startTestServer(dialect, {}, { databaseUrl: database.url });
    const t = await first.tenant();
    const { issues } = await submitAll(first, t, PROBLEM);
    const issue = issues[0] as string;
    await makeStale(first.ctx.db, issue, OLD_RULES_SIGNATURE);
    await first.close();

    const upgraded = await startTestServer(
      dialect,
      {},
      { databaseUrl: database.url, groupingThread: true },
    );
    try {
      const deadline = Date.now() + 20_000;
      let row = { signature: OLD_RULES_SIGNATURE, terms_version: 1 };
      while (row.terms_version !== TERMS_VERSION && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        row = await upgraded.ctx.db
          .selectFrom('issues')
          .select(['signature', 'terms_version'])
          .where('id', '=', issue)
          .executeTakeFirstOrThrow();
      }
      expect(row.terms_version).toBe(TERMS_VERSION);
      expect(parseSignature(row.signature)).toEqual(
        groupedAfresh(await reportsOf(upgraded.ctx.db, issue)),
      );
    } finally {
      await upgraded.close();
    }
  });
});

/** A trigger that fails the update of one issue's signature, as a crash mid-round would. */
async function crashOnUpdate(db: Kysely<DB>, dialect: string, issueId: string) {
  const id = sql.lit(issueId);
  if (dialect === 'postgres') {
    await sql`create function refresh_crash() returns trigger language plpgsql as $$
      begin raise exception 'crash mid-refresh'; end $$`.execute(db);
    await sql`create trigger refresh_crash before update of signature on issues for each row
      when (new.id = ${id}) execute function refresh_crash()`.execute(db);
  } else {
    await sql`create trigger refresh_crash before update of signature on issues
      when new.id = ${id} begin select raise(abort, 'crash mid-refresh'); end`.execute(db);
  }
}

async function dropCrash(db: Kysely<DB>, dialect: string) {
  if (dialect === 'postgres') {
    await sql`drop trigger refresh_crash on issues`.execute(db);
    await sql`drop function refresh_crash()`.execute(db);
  } else await sql`drop trigger refresh_crash`.execute(db);
}
