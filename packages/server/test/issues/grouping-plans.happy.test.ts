import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import type { DB } from '../../src/db/schema.js';
import { tuneGroupingTransaction } from '../../src/issues/pipeline/grouping.repository.js';
import {
  anyReportWaiting,
  listWaitingReports,
  placeWaitingReports,
} from '../../src/issues/pipeline/grouping-queue.js';
import { openPlanningDatabase, type PlanNode, type PlanningDatabase } from '../support/pg-plans.js';

/**
 * The grouper's batch on PostgreSQL is planned by the batch, not by the table, at sizes where the
 * planner's own choice was a sequential scan of `reports` per batch (tuneGroupingTransaction):
 * a small project's tables, analyzed as autovacuum would, planned in the batch's transaction
 * with the planner's statistics, not with scans priced out. The waiting reports are queued as
 * the write path queues them (migration 0019): a row per stored batch of 20.
 */
describe.runIf(DIALECTS.includes('postgres'))("the grouper's batch plans on PostgreSQL", () => {
  const REPORTS = 20_000;
  const WAITING = 1_500;
  const PER_ROW = 20;
  let planning: PlanningDatabase;
  let kysely: Kysely<DB>;

  beforeAll(async () => {
    planning = await openPlanningDatabase();
    ({ kysely } = planning);
    // 20,000 reports of one project, all but the newest 1,500 placed, those queued.
    await planning.pool.query(`
      insert into accounts (id, email, created_at) values ('a', 'a@example.test', now());
      insert into projects (id, account_id, name, created_at) values ('p', 'a', 'P', now());
      insert into reports (id, project_id, outcome, tool_name, source, details, created_at)
        select lpad(to_hex(n), 32, '0'), 'p', 'failure', 'search', 'cli',
          'search returned nothing for query ' || n, now() - (${REPORTS} - n) * interval '1 second'
        from generate_series(1, ${REPORTS}) as n;
      insert into report_issues (report_id, project_id, created_at, issue_id, issue_reason)
        select id, project_id, created_at, 'i', 'seeded' from reports
        order by id limit ${REPORTS - WAITING};
      insert into grouping_queue (id, created_at, report_ids)
        select min(id), min(created_at), json_agg(id order by id)::text
        from (select id, created_at, row_number() over (order by id) as n from reports
          order by id offset ${REPORTS - WAITING}) as waiting
        group by (n - 1) / ${PER_ROW};
      analyze reports;
      analyze report_issues;
      analyze grouping_queue;
    `);
  });
  afterAll(() => planning.close());

  /** The plan of a statement `run` sends (the first), in the grouper's transaction (rolled back). */
  async function planInBatch(
    tune: boolean,
    run: (trx: Kysely<DB>) => Promise<unknown>,
    statement = 0,
  ): Promise<PlanNode[]> {
    let plan: PlanNode[] = [];
    await kysely
      .transaction()
      .execute(async (trx) => {
        if (tune) await tuneGroupingTransaction(trx, 'postgres');
        plan = await planning.planOf(() => run(trx), trx, { statement });
        throw new Rollback();
      })
      .catch((error) => {
        if (!(error instanceof Rollback)) throw error;
      });
    return plan;
  }
  class Rollback extends Error {}

  const types = (plan: PlanNode[]) => plan.map((node) => node['Node Type']);
  const scans = (plan: PlanNode[]) =>
    plan.filter((node) => node['Node Type'] === 'Seq Scan').map((node) => node['Relation Name']);

  it('reads a batch from the queue in its order, then report by report', async () => {
    const read = (scan: 'all' | 'recent') => (trx: Kysely<DB>) =>
      listWaitingReports(trx, 'postgres', 1000, scan);
    // What the setting is for: left alone, the planner scans `reports` at this size.
    expect(scans(await planInBatch(false, read('all'), 1))).toContain('reports');

    for (const scan of ['all', 'recent'] as const) {
      // The queue alone: 75 rows here, two pages, which PostgreSQL reads whole and sorts (a
      // queue bloated by consumed rows is read by its index: the last test).
      const queue = await planInBatch(true, read(scan), 0);
      const relations = queue.map((node) => node['Relation Name']).filter(Boolean);
      expect(relations).toContain('grouping_queue');
      expect(relations).not.toContain('reports');
      const reports = await planInBatch(true, read(scan), 1);
      expect(scans(reports)).toEqual([]);
      const indexes = reports.map((node) => node['Index Name']).filter(Boolean);
      expect(indexes).toContain('reports_pkey');
      expect(indexes).toContain('report_issues_pkey');
      expect(types(reports)).not.toContain('Gather Merge');
      expect(types(reports)).not.toContain('Gather');
    }
    const { reports, take } = await kysely
      .transaction()
      .execute((trx) => listWaitingReports(trx, 'postgres', 1000, 'all'));
    expect(reports).toHaveLength(1000);
    expect(take.done).toHaveLength(1000 / PER_ROW);
    expect(take.rest).toBeNull();
  });

  it("asks whether a report waits with one entry of the queue's index", async () => {
    for (const scan of ['all', 'recent'] as const) {
      const plan = await planInBatch(false, (trx) => anyReportWaiting(trx, 'postgres', scan));
      expect(scans(plan)).toEqual([]);
      expect(plan.map((node) => node['Index Name'])).toContain('grouping_queue_by_time');
    }
  });

  it("places a batch with one insert of its rows, each report's time and project read by key", async () => {
    const place = async (trx: Kysely<DB>) => {
      const { reports, take } = await listWaitingReports(trx, 'postgres', 1000, 'all');
      const placements = reports.map((r) => ({ reportId: r.id, issueId: 'j', reason: 'same' }));
      await placeWaitingReports(trx, 'postgres', placements, reports, take);
    };
    // Left alone: a hash of every report.
    expect(types(await planInBatch(false, place, 2))).toContain('Hash Join');
    // The statement after the read's two (one page of the queue, the reports).
    const plan = await planInBatch(true, place, 2);
    expect(plan[0]?.['Node Type']).toBe('ModifyTable');
    expect(plan[0]?.['Relation Name']).toBe('report_issues');
    expect(plan.map((node) => node['Index Name'])).toContain('reports_pkey');
    expect(types(plan)).not.toContain('Hash Join');
    // The consumed rows' delete may read the queue whole: two pages here.
    expect(scans(plan).filter((relation) => relation !== 'grouping_queue')).toEqual([]);
  });

  it("commits a batch without waiting for the disk, and the settings end with the batch's transaction", async () => {
    const shown = async (db: Kysely<DB>) => {
      const { rows } = await sql<{ commit: string; hash: string }>`
        select current_setting('synchronous_commit') as commit,
          current_setting('enable_hashjoin') as hash
      `.execute(db);
      return rows[0];
    };
    const before = await shown(kysely);
    await kysely.transaction().execute(async (trx) => {
      await tuneGroupingTransaction(trx, 'postgres');
      expect(await shown(trx)).toEqual({ commit: 'off', hash: 'off' });
    });
    // The test cluster commits without fsync anyway; the server's default is on.
    expect(await shown(kysely)).toEqual(before);
    expect(before?.hash).toBe('on');
  });
  it('starts a scan of the queue at the last grouped report, past the entries vacuum has not removed yet', async () => {
    // 18,500 rows consumed (deleted) ahead of the 75 that wait, with vacuum held off: they keep
    // their entries at the start of the queue's index.
    await planning.pool.query(`
      alter table grouping_queue set (autovacuum_enabled = false);
      insert into grouping_queue (id, created_at, report_ids)
        select 'c' || report_id, created_at, json_build_array(report_id)::text from report_issues;
      delete from grouping_queue where id like 'c%';
      update grouping_progress set last_created_at =
        (select max(created_at) from report_issues) where id = 'default';
    `);
    const pages = async (scan: 'all' | 'recent') => {
      // Twice: the first walk also marks the dead entries it meets, as the grouper's rounds do.
      await anyReportWaiting(kysely, 'postgres', scan);
      const plan = await planning.planOf(() => anyReportWaiting(kysely, 'postgres', scan), kysely, {
        analyze: true,
      });
      const scanNode = plan.find((node) => node['Index Name'] === 'grouping_queue_by_time');
      return (scanNode?.['Shared Hit Blocks'] ?? 0) + (scanNode?.['Shared Read Blocks'] ?? 0);
    };
    const all = await pages('all');
    const recent = await pages('recent');
    expect(all).toBeGreaterThan(40);
    expect(recent).toBeLessThan(10);
    // A batch's read of the queue, bloated so, goes by its index too.
    const read = await planInBatch(true, (trx) =>
      listWaitingReports(trx, 'postgres', 1000, 'recent'),
    );
    expect(read.map((node) => node['Index Name'])).toContain('grouping_queue_by_time');
    // Both find the oldest waiting report (the bound is 10 s before the last grouped one).
    const first = (scan: 'all' | 'recent') =>
      kysely.transaction().execute(async (trx) => {
        const { reports } = await listWaitingReports(trx, 'postgres', 1, scan);
        return reports[0]?.id;
      });
    expect(await first('recent')).toBe(await first('all'));
    expect(await first('all')).toBeDefined();
  });
});
