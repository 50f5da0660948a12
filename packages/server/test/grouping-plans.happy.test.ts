import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../test/harness/databases.js';
import type { DB } from '../src/db/schema.js';
import {
  anyReportWaiting,
  listUngroupedReports,
  setReportsIssues,
  tuneGroupingTransaction,
} from '../src/issues/grouping.repository.js';
import { openPlanningDatabase, type PlanNode, type PlanningDatabase } from './pg-plans.js';

/**
 * The grouper's batch on PostgreSQL is planned by the batch, not by the table, at sizes where the
 * planner's own choice was a sequential scan of `reports` and of `report_issues` per batch
 * (tuneGroupingTransaction): a small project's tables, analyzed as autovacuum would, planned in
 * the batch's transaction with the planner's statistics, not with scans priced out.
 */
describe.runIf(DIALECTS.includes('postgres'))("the grouper's batch plans on PostgreSQL", () => {
  const REPORTS = 20_000;
  const WAITING = 1_500;
  let planning: PlanningDatabase;
  let kysely: Kysely<DB>;

  beforeAll(async () => {
    planning = await openPlanningDatabase();
    ({ kysely } = planning);
    // 20,000 reports of one project, all but the newest 1,500 grouped.
    const waitingFrom = `lpad(to_hex(${REPORTS - WAITING}), 32, '0')`;
    await planning.pool.query(`
      insert into accounts (id, email, created_at) values ('a', 'a@example.test', now());
      insert into projects (id, account_id, name, created_at) values ('p', 'a', 'P', now());
      insert into reports (id, project_id, outcome, tool_name, source, details, created_at)
        select lpad(to_hex(n), 32, '0'), 'p', 'failure', 'search', 'cli',
          'search returned nothing for query ' || n, now() - (${REPORTS} - n) * interval '1 second'
        from generate_series(1, ${REPORTS}) as n;
      insert into report_issues (report_id, project_id, created_at, issue_id, issue_reason)
        select id, project_id, created_at,
          case when id > ${waitingFrom} then null else 'i' end,
          case when id > ${waitingFrom} then null else 'seeded' end
        from reports;
      analyze reports;
      analyze report_issues;
    `);
  });
  afterAll(() => planning.close());

  /** The plan of the first statement `run` sends, in the grouper's transaction (rolled back). */
  async function planInBatch(
    tune: boolean,
    run: (trx: Kysely<DB>) => Promise<unknown>,
  ): Promise<PlanNode[]> {
    let plan: PlanNode[] = [];
    await kysely
      .transaction()
      .execute(async (trx) => {
        if (tune) await tuneGroupingTransaction(trx, 'postgres');
        plan = await planning.planOf(() => run(trx), trx);
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

  it('reads a batch through the partial index of waiting reports, then report by report', async () => {
    const untuned = await planInBatch(false, (trx) =>
      listUngroupedReports(trx, 'postgres', 1000, 'all'),
    );
    // What the setting is for: left alone, the planner scans `reports` at this size.
    expect(scans(untuned)).toContain('reports');

    for (const scan of ['all', 'recent'] as const) {
      const plan = await planInBatch(true, (trx) =>
        listUngroupedReports(trx, 'postgres', 1000, scan),
      );
      expect(scans(plan)).toEqual([]);
      const indexes = plan.map((node) => node['Index Name']).filter(Boolean);
      expect(indexes).toContain('report_issues_ungrouped');
      expect(indexes).toContain('reports_pkey');
      expect(types(plan)).not.toContain('Gather Merge');
      expect(types(plan)).not.toContain('Gather');
    }
  });

  it('asks whether a report waits with one entry of the partial index', async () => {
    for (const scan of ['all', 'recent'] as const) {
      const plan = await planInBatch(false, (trx) => anyReportWaiting(trx, 'postgres', scan));
      expect(scans(plan)).toEqual([]);
      expect(plan.map((node) => node['Index Name'])).toContain('report_issues_ungrouped');
    }
  });

  /** How the grouper places 1,000 waiting reports in issue `j` (read first, planned alone). */
  async function placingWaiting() {
    const { rows } = await sql<{ report_id: string }>`
      select report_id from report_issues where issue_id is null limit 1000
    `.execute(kysely);
    const placements = rows.map((row) => ({
      reportId: row.report_id,
      issueId: 'j',
      reason: 'same tool search',
    }));
    return (trx: Kysely<DB>) => setReportsIssues(trx, 'postgres', placements);
  }

  it("places a batch by each report's key", async () => {
    const place = await placingWaiting();
    // Left alone: a hash of every waiting report (or, at 30,000 reports, of the whole table).
    expect(types(await planInBatch(false, place))).toContain('Hash Join');
    const plan = await planInBatch(true, place);
    expect(scans(plan)).toEqual([]);
    expect(plan.map((node) => node['Index Name'])).toContain('report_issues_pkey');
    expect(types(plan)).not.toContain('Hash Join');
  });

  it('places a batch by key when the statistics say almost nothing waits', async () => {
    // Under ingest the waiting reports can outrun autoanalyze: the partial index of waiting
    // reports looks nearly empty, and PostgreSQL walked it with the batch rescanned for each
    // waiting report (17 s a batch with 80,000 waiting, against 12 ms by key).
    await planning.pool.query(`
      update report_issues set issue_id = 'i', issue_reason = 'seeded' where issue_id is null;
      analyze report_issues;
      update report_issues set issue_id = null, issue_reason = null
        where report_id in (select report_id from report_issues order by report_id desc limit ${WAITING});
    `);
    const plan = await planInBatch(true, await placingWaiting());
    const indexes = plan.map((node) => node['Index Name']).filter(Boolean);
    expect(indexes).toEqual(['report_issues_pkey']);
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
  it('starts a scan of the waiting reports at the last grouped one, past the entries vacuum has not removed yet', async () => {
    // Every grouped report placed again, as the grouper places one (an update), with vacuum
    // held off: the old row versions of the 18,500 keep their entries at the start of the
    // partial index of waiting reports, ahead of the 1,500 that wait.
    await planning.pool.query(`
      alter table report_issues set (autovacuum_enabled = false);
      update report_issues set issue_id = null, issue_reason = null
        where report_id in (select report_id from report_issues where issue_id is not null);
      update report_issues set issue_id = 'i', issue_reason = 'seeded'
        where report_id in (select report_id from report_issues order by report_id
          limit ${REPORTS - WAITING});
      update grouping_progress set last_created_at =
        (select max(created_at) from report_issues where issue_id is not null) where id = 'default';
    `);
    const pages = async (scan: 'all' | 'recent') => {
      // Twice: the first walk also marks the dead entries it meets, as the grouper's rounds do.
      await anyReportWaiting(kysely, 'postgres', scan);
      const plan = await planning.planOf(() => anyReportWaiting(kysely, 'postgres', scan), kysely, {
        analyze: true,
      });
      const scanNode = plan.find((node) => node['Index Name'] === 'report_issues_ungrouped');
      return (scanNode?.['Shared Hit Blocks'] ?? 0) + (scanNode?.['Shared Read Blocks'] ?? 0);
    };
    const all = await pages('all');
    const recent = await pages('recent');
    expect(all).toBeGreaterThan(40);
    expect(recent).toBeLessThan(10);
    // Both find the oldest waiting report (the bound is 10 s before the last grouped one).
    const [first] = await listUngroupedReports(kysely, 'postgres', 1, 'all');
    const [fromRecent] = await listUngroupedReports(kysely, 'postgres', 1, 'recent');
    expect(fromRecent?.id).toBe(first?.id);
  });
});
