import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { newId } from '../../src/ids.js';
import {
  bumpIssuesVersion,
  readGroupingProgress,
} from '../../src/issues/pipeline/grouping.repository.js';
import type { BusEvent } from '../../src/realtime/event-bus.js';
import { submit } from '../support/issues-helpers.js';
import { seedReport } from '../support/seed.js';

/**
 * Grouping at the bench's load: the report writer gives each report its issue as it
 * moves it into `reports` (issues/pipeline/group-batch.ts createArrivalGrouper), in the transaction that
 * inserts it, so grouping costs no second write of the row and no second commit. Checked with
 * the server's background grouper stopped: whatever gets an issue got it from the writer. The
 * order rule (a report never overtakes an older one still waiting for the grouper) and the
 * fallback (a grouping that fails stores the reports all the same) are checked too.
 */
const PROBLEMS = [
  'pagination repeats page two',
  'permission denied on repo',
  'date format rejected',
];

describe('the SQLite report writer groups what it stores', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
    await server.ctx.grouper.stop();
  });
  afterAll(() => server.close());

  async function reportsOf(projectId: string) {
    // The read barrier moves the writer's inbox first (db/routed-dialect.ts).
    return server.ctx.db
      .selectFrom('reports')
      .leftJoin('report_issues', 'report_issues.report_id', 'reports.id')
      .select(['reports.id', 'report_issues.issue_id', 'report_issues.issue_reason'])
      .where('reports.project_id', '=', projectId)
      .orderBy('reports.created_at')
      .orderBy('reports.id')
      .execute();
  }

  it('inserts each report with its issue and announces the new issues, with no grouper running', async () => {
    const t = await server.tenant();
    const events: BusEvent[] = [];
    const unsubscribe = server.ctx.bus.subscribe(t.projectId, (event) => events.push(event));
    const before = Number((await readGroupingProgress(server.ctx.db)).grouped_count);
    for (let i = 0; i < 30; i += 1) {
      await submit(server, t, {
        outcome: 'failure',
        tool_name: 'search',
        details: `${PROBLEMS[i % 3]} (request ${1000 + i})`,
      });
    }
    const rows = await reportsOf(t.projectId);
    expect(rows).toHaveLength(30);
    expect(rows.every((r) => r.issue_id !== null && r.issue_reason)).toBe(true);
    const issues = await server.ctx.db
      .selectFrom('issues')
      .select(['id', 'report_count'])
      .where('project_id', '=', t.projectId)
      .execute();
    expect(issues.map((i) => Number(i.report_count)).sort()).toEqual([10, 10, 10]);
    // One move, its placements bound as runs of one report each (the problems alternate).
    const issueOf = PROBLEMS.map(
      (_, p) => new Set(rows.filter((_, i) => i % 3 === p).map((r) => r.issue_id)),
    );
    expect(issueOf.map((ids) => ids.size)).toEqual([1, 1, 1]);
    expect(new Set(issueOf.map((ids) => [...ids][0])).size).toBe(3);
    const after = Number((await readGroupingProgress(server.ctx.db)).grouped_count);
    expect(after - before).toBe(30);
    unsubscribe();
    const created = events.filter((e) => e.type === 'issue' && e.issue.change === 'created');
    expect(created).toHaveLength(3);
  });

  it('places runs of repeated reports with their issue and reason, run by run', async () => {
    const t = await server.tenant();
    const sent = [0, 0, 0, 0, 0, 1, 1, 0, 0, 0].map((p) => PROBLEMS[p] as string);
    for (const details of sent)
      await submit(server, t, { outcome: 'failure', tool_name: 'search', details });
    const rows = await reportsOf(t.projectId);
    expect(rows).toHaveLength(10);
    const first = rows[0]!.issue_id;
    const second = rows[5]!.issue_id;
    expect(second).not.toBe(first);
    expect(rows.map((r) => r.issue_id)).toEqual(
      [0, 0, 0, 0, 0, 1, 1, 0, 0, 0].map((p) => (p === 0 ? first : second)),
    );
    // Repeats of the first problem are compared again once the second one changed the pool:
    // one issue, three runs of reasons.
    expect(rows.map((r) => r.issue_reason?.includes('the same details as'))).toEqual([
      false,
      true,
      true,
      true,
      true,
      false,
      true,
      false,
      true,
      true,
    ]);
  });

  it('groups what a stopped server left in the inbox, read from the file, with what comes after', async () => {
    const t = await server.tenant();
    // Committed to the inbox by a writer that is gone: this writer never stored it.
    const left = newId();
    await sql`
      insert into report_inbox (id, project_id, outcome, tool_name, details, created_at)
      values (${left}, ${t.projectId}, 'failure', 'search', ${`${PROBLEMS[1]} (left behind)`},
        ${new Date(Date.now() - 1_000).toISOString()})
    `.execute(server.ctx.db);
    const after = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'search',
      details: `${PROBLEMS[1]} (request 7)`,
    });
    const later = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'search',
      details: `${PROBLEMS[2]} (request 8)`,
    });
    const rows = await reportsOf(t.projectId);
    expect(rows.map((r) => r.id)).toEqual([left, after, later]);
    expect(rows.every((r) => r.issue_id !== null)).toBe(true);
    expect(rows[1]!.issue_id).toBe(rows[0]!.issue_id);
    expect(rows[2]!.issue_id).not.toBe(rows[0]!.issue_id);
  });

  it('leaves new reports to the grouper while older ones wait for it, then groups again', async () => {
    const t = await server.tenant();
    // An older report without an issue (an upgraded database, or one run with ISSUE_GROUPING=off).
    const old = await seedReport(server.ctx.db, t.projectId, {
      outcome: 'failure',
      tool_name: 'search',
      details: PROBLEMS[0],
      at: new Date(Date.now() - 60_000).toISOString(),
    });
    const waiting = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'search',
      details: `${PROBLEMS[0]} again`,
    });
    let rows = await reportsOf(t.projectId);
    expect(rows.map((r) => [r.id, r.issue_id])).toEqual([
      [old, null],
      [waiting, null],
    ]);

    // The grouper takes both, in report order; from then on the writer groups again.
    server.ctx.grouper.start();
    await server.ctx.grouper.stop();
    rows = await reportsOf(t.projectId);
    expect(rows.every((r) => r.issue_id !== null)).toBe(true);
    const latest = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'search',
      details: `${PROBLEMS[0]}, third time`,
    });
    rows = await reportsOf(t.projectId);
    expect(rows.find((r) => r.id === latest)?.issue_id).toBe(rows[0]!.issue_id);
  });

  it('stores reports without an issue when grouping fails, for the grouper to group later', async () => {
    const t = await server.tenant();
    const first = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'fetch',
      details: 'timeout after 30 s',
    });
    const [row] = await reportsOf(t.projectId);
    expect(row?.issue_id).toBeTruthy();
    // An issue the engine cannot read makes the writer's grouping of this tool fail.
    const signature = await server.ctx.db
      .selectFrom('issues')
      .select('signature')
      .where('id', '=', row!.issue_id!)
      .executeTakeFirstOrThrow();
    // Bumped as every writer of issues bumps it (triage): the writer reads its candidates again.
    await sql`update issues set signature = '{broken' where id = ${row!.issue_id}`.execute(
      server.ctx.db,
    );
    await bumpIssuesVersion(server.ctx.db);
    const second = await submit(server, t, {
      outcome: 'failure',
      tool_name: 'fetch',
      details: 'timeout after 31 s',
    });
    let rows = await reportsOf(t.projectId);
    expect(rows.map((r) => [r.id, r.issue_id === null])).toEqual([
      [first, false],
      [second, true],
    ]);

    await sql`update issues set signature = ${signature.signature} where id = ${row!.issue_id}`.execute(
      server.ctx.db,
    );
    await bumpIssuesVersion(server.ctx.db);
    server.ctx.grouper.start();
    await server.ctx.grouper.stop();
    rows = await reportsOf(t.projectId);
    expect(rows.map((r) => r.issue_id)).toEqual([row!.issue_id, row!.issue_id]);
  });
});
