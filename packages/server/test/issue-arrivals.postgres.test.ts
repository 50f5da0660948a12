import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import { bumpIssuesVersion, readGroupingProgress } from '../src/issues/grouping.repository.js';
import type { BusEvent } from '../src/realtime/event-bus.js';
import { submit } from './issues-helpers.js';
import { seedReport } from './seed.js';

/**
 * Issue 18 item 1 on PostgreSQL: the group commit gives each report its issue in the batch's one
 * statement (issues/chained-arrivals.ts, reports/write-path/grouped-write.ts), written only if
 * the grouping progress still holds the version its pools were read at and no stored report
 * waits. Checked with the background grouper stopped: whatever gets an issue got it from the
 * writer. Concurrent writes of issues (triage's version bump), the order rule (a report that
 * waits is placed before newer ones, by the writer's next batch) and the engine's budget are
 * checked too.
 */
const PROBLEMS: readonly string[] = [
  'pagination repeats page two',
  'permission denied on repo',
  'date format rejected',
] as const;

describe.skipIf(!DIALECTS.includes('postgres'))(
  'the PostgreSQL report writer groups what it stores',
  () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer('postgres');
      await server.ctx.grouper.stop();
    });
    afterAll(() => server.close());

    async function reportsOf(projectId: string) {
      return server.ctx.db
        .selectFrom('reports')
        .leftJoin('report_issues', 'report_issues.report_id', 'reports.id')
        .select(['reports.id', 'report_issues.issue_id', 'report_issues.issue_reason'])
        .where('reports.project_id', '=', projectId)
        .orderBy('reports.created_at')
        .orderBy('reports.id')
        .execute();
    }

    async function issuesOf(projectId: string) {
      return server.ctx.db
        .selectFrom('issues')
        .select(['id', 'report_count', 'status', 'regressed_at'])
        .where('project_id', '=', projectId)
        .execute();
    }

    it('inserts each report with its issue, counts it and announces new issues, with no grouper running', async () => {
      const t = await server.tenant();
      const events: BusEvent[] = [];
      const unsubscribe = server.ctx.bus.subscribe(t.projectId, (event) => events.push(event));
      const before = Number((await readGroupingProgress(server.ctx.db)).grouped_count);
      // Concurrent: batches of several reports, two in flight, chained by the version. A problem
      // a tool, worded two ways, each wording sent five times: a repeat of the report its pool
      // placed last costs the engine no comparison, so the writer's budget (the last test) does
      // not stop it.
      const ids = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          submit(server, t, {
            outcome: i % 2 === 0 ? 'failure' : 'gave_up',
            tool_name: ['search', 'fetch', 'list'][i % 3],
            details: `${PROBLEMS[i % 3]} (request ${1000 + (i % 6)})`,
          }),
        ),
      );
      const rows = await reportsOf(t.projectId);
      expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
      expect(rows.every((r) => r.issue_id !== null && r.issue_reason)).toBe(true);
      const issues = await issuesOf(t.projectId);
      expect(issues.map((i) => Number(i.report_count)).sort()).toEqual([10, 10, 10]);
      const after = Number((await readGroupingProgress(server.ctx.db)).grouped_count);
      expect(after - before).toBe(30);
      await new Promise((resolve) => setTimeout(resolve, 100));
      unsubscribe();
      const created = events.filter((e) => e.type === 'issue' && e.issue.change === 'created');
      expect(created).toHaveLength(3);
    });

    it('stores a batch without issues when triage wrote issues meanwhile, and places them with the next', async () => {
      const t = await server.tenant();
      const first = await submit(server, t, {
        outcome: 'failure',
        tool_name: 'fetch',
        details: 'timeout after 30 s',
      });
      // Triage (or another instance) writes issues: the writer's kept version no longer holds.
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
      // The next batch reads the version and the waiting report again, and places it first.
      const third = await submit(server, t, {
        outcome: 'failure',
        tool_name: 'fetch',
        details: 'timeout after 32 s',
      });
      rows = await reportsOf(t.projectId);
      expect(rows.map((r) => r.id)).toEqual([first, second, third]);
      expect(new Set(rows.map((r) => r.issue_id)).size).toBe(1);
      expect(rows[0]!.issue_id).not.toBeNull();
      const [issue] = await issuesOf(t.projectId);
      expect(Number(issue?.report_count)).toBe(3);
    });

    it('places an older waiting report before newer ones, and reopens a resolved issue', async () => {
      const t = await server.tenant();
      const first = await submit(server, t, {
        outcome: 'failure',
        tool_name: 'list',
        details: `${PROBLEMS[0]}`,
      });
      const [row] = await reportsOf(t.projectId);
      await sql`update issues set status = 'resolved', resolved_at = now() where id = ${row!.issue_id}`.execute(
        server.ctx.db,
      );
      await bumpIssuesVersion(server.ctx.db);
      // An older report without an issue (an upgraded database, ISSUE_GROUPING=off until now).
      const old = await seedReport(server.ctx.db, t.projectId, {
        outcome: 'failure',
        tool_name: 'list',
        details: `${PROBLEMS[0]} (old)`,
        at: new Date(Date.now() - 60_000).toISOString(),
      });
      await submit(server, t, {
        outcome: 'failure',
        tool_name: 'list',
        details: `${PROBLEMS[0]}!`,
      });
      await submit(server, t, {
        outcome: 'failure',
        tool_name: 'list',
        details: `${PROBLEMS[0]}?`,
      });
      const rows = await reportsOf(t.projectId);
      expect(rows[0]!.id).toBe(old);
      expect(rows.every((r) => r.issue_id === row!.issue_id)).toBe(true);
      const [issue] = await issuesOf(t.projectId);
      expect(issue?.status).toBe('open');
      expect(issue?.regressed_at).not.toBeNull();
      expect(Number(issue?.report_count)).toBe(4);
      expect(rows.map((r) => r.id)).toContain(first);
    });

    it('leaves reports the engine would compare beyond its budget to the background grouper', async () => {
      const t = await server.tenant();
      // Forty different problems at once: a batch compares at most a few on the event loop.
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          submit(server, t, {
            outcome: 'failure',
            tool_name: `tool_${i % 4}`,
            details: `problem number ${i}: ${PROBLEMS[i % 3]} in module ${String.fromCharCode(97 + i)}`,
          }),
        ),
      );
      let rows = await reportsOf(t.projectId);
      expect(rows.some((r) => r.issue_id === null)).toBe(true);
      server.ctx.grouper.start();
      await server.ctx.grouper.stop();
      rows = await reportsOf(t.projectId);
      expect(rows.every((r) => r.issue_id !== null)).toBe(true);
      const total = (await issuesOf(t.projectId)).reduce((n, i) => n + Number(i.report_count), 0);
      expect(total).toBe(40);
    });
  },
);
