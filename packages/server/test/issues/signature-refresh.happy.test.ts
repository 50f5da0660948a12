import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import {
  fingerprint,
  parseSignature,
  serializeSignature,
  TERMS_VERSION,
} from '../../src/issues/grouping/index.js';
import { Grouper } from '../../src/issues/pipeline/grouper.js';
import { SignatureRefresh } from '../../src/issues/pipeline/signature-refresh.js';
import { bearer, call } from '../support/http.js';
import { issueOf, issuesUrl, submit, triageKey } from '../support/issues-helpers.js';
import {
  groupedAfresh,
  makeStale,
  OLD_RULES_SIGNATURE,
  PROBLEM,
  problem,
  refreshAll,
  reportsOf,
  STALE,
  submitAll,
} from '../support/stale-signatures.js';

/**
 * After an upgrade that changed how text becomes terms (TERMS_VERSION), the signatures stored
 * under the older rules are made again from their reports by the grouper, between batches: an
 * issue's centroid, a moved report's exemplar, a merge record's. Refreshed, an issue's
 * signature is what grouping its reports afresh gives; a report worded as only the new rules
 * read then joins it; a refresh is idempotent, ends, and a round that fails writes nothing.
 */

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
