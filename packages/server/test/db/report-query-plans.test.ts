import SQLite from 'better-sqlite3';
import { type CompiledQuery, Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  DIALECTS,
  type TestDatabase,
} from '../../../../test/harness/databases.js';
import {
  countByDay,
  countByDayInRange,
  countBySourceInRange,
  countByTool,
  countByToolInRange,
  type StatsFilters,
} from '../../src/console/stats.repository.js';
import { openMigratedDatabase } from '../../src/db/migrate.js';
import type { DB } from '../../src/db/schema.js';
import type { IssueFilters } from '../../src/issues/issue.repository.js';
import {
  countIssuesInRange,
  type IssueRange,
  listIssuesInRange,
} from '../../src/issues/issue-range.repository.js';
import { anyReportWaiting, listWaitingReports } from '../../src/issues/pipeline/grouping-queue.js';
import { seekDeepPage } from '../../src/reports/deep-page.repository.js';
import {
  countReportsByOutcome,
  findReportById,
  listReportsAfterId,
  listReportsPage,
  type PageStart,
  type ReportFilters,
} from '../../src/reports/report.repository.js';
import {
  countOutcomesByProjectSince,
  countOutcomesInRange,
} from '../../src/reports/report-rollups.repository.js';
import { openPlanningDatabase, type PlanningDatabase } from '../support/pg-plans.js';

const PROJECT = 'a'.repeat(32);
const FROM = new Date('2026-01-01T00:00:00Z');
const BEFORE = new Date('2026-02-01T00:00:00Z');

/** Every combination of the filters, with and without a date range. */
const FILTERS: StatsFilters[] = [];
for (const toolName of [undefined, 'search']) {
  for (const source of [undefined, 'cli']) {
    for (const range of [{}, { from: FROM }, { before: BEFORE }, { from: FROM, before: BEFORE }]) {
      FILTERS.push({ toolName, source, ...range });
    }
  }
}
const LIST_FILTERS: ReportFilters[] = FILTERS.flatMap((filters) => [
  filters,
  { ...filters, outcome: 'failure' },
]);

/** A page by number, deep, and a page after a cursor: every filter combination is run with each. */
const STARTS: PageStart[] = [
  { offset: 4950 },
  { after: { createdAt: '2026-01-15T00:00:00.000Z', id: 'f'.repeat(32) } },
];
const PAGES = LIST_FILTERS.flatMap((filters) => STARTS.map((start) => ({ filters, start })));

/**
 * The issues list with a date range: every filter and bound, sorted by the
 * range's count and by a column (the sort changes no seek, only what orders the page).
 */
const ISSUE_RANGES: IssueRange[] = [
  { from: FROM },
  { before: BEFORE },
  { from: FROM, before: BEFORE },
];
const ISSUE_FILTERS: IssueFilters[] = [
  {},
  { status: 'open' },
  { status: 'open', toolName: 'search' },
  { outcome: 'failure' },
];
const ISSUE_QUERIES = ISSUE_RANGES.flatMap((range) =>
  ISSUE_FILTERS.flatMap((filters) =>
    (['count', 'last_seen'] as const).map((sort) => ({ range, filters, sort })),
  ),
);
const issueQueries = (kysely: Kysely<DB>, q: (typeof ISSUE_QUERIES)[number]) => [
  () => listIssuesInRange(kysely, PROJECT, q.filters, q.range, q.sort, { offset: 0, limit: 50 }),
  () => countIssuesInRange(kysely, PROJECT, q.filters, q.range),
];

/** The index a page must seek in: the most selective label given, or time (migration 0011). */
function pageIndex(filters: ReportFilters): string {
  if (filters.toolName !== undefined) return 'reports_by_project_tool';
  if (filters.source !== undefined) return 'reports_by_project_source';
  if (filters.outcome !== undefined) return 'reports_by_project_outcome';
  return 'reports_by_project_time';
}

/**
 * "Indexes that serve every filter": on SQLite every query of the reports, for every filter
 * combination, must seek through an index (or the primary key), never read the whole table, and
 * a page must come out of its index already in order. Plans are read as the server gets them:
 * the real queries, compiled by Kysely, on a database without ANALYZE statistics (the server
 * never runs ANALYZE). Fewer indexes would make ingest faster and turn these seeks into walks.
 */
describe('query plans of the reports on SQLite', () => {
  let database: TestDatabase;
  let sqlite: SQLite.Database;
  let kysely: Kysely<DB>;
  const queries: CompiledQuery[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    await (await openMigratedDatabase(database.url)).database.close();
    sqlite = new SQLite(database.url);
    kysely = new Kysely<DB>({
      dialect: new SqliteDialect({ database: sqlite }),
      log: (event) => {
        if (event.level === 'query') queries.push(event.query);
      },
    });
  });
  afterAll(async () => {
    await kysely.destroy();
    await database.drop();
  });

  /** The plan of each query run by `run`, one line per step. */
  async function plans(run: () => Promise<unknown>): Promise<string[][]> {
    queries.length = 0;
    await run();
    return queries.map((query) =>
      sqlite
        .prepare<unknown[], { detail: string }>(`explain query plan ${query.sql}`)
        .all(...query.parameters)
        .map((step) => step.detail),
    );
  }

  /**
   * The plan seeks on a filter's column: `SEARCH reports USING … INDEX … (project_id=? AND
   * tool_name=? …)`. Of several filters SQLite seeks on one and checks the others.
   */
  function expectSeek(plan: string[] | undefined, filters: ReportFilters, what: string) {
    const labels = [
      filters.outcome !== undefined && 'outcome',
      filters.toolName !== undefined && 'tool_name',
      filters.source !== undefined && 'source',
    ].filter((column) => column !== false);
    const dates = filters.from !== undefined || filters.before !== undefined;
    const columns = [...labels, ...(dates ? ['created_at'] : [])];
    if (columns.length === 0) columns.push('project_id');
    const seek = new RegExp(
      `^SEARCH reports USING (COVERING )?INDEX \\w+ \\((?=[^)]*\\b(${columns.join('|')})[=<>])project_id=\\?`,
    );
    expect.soft(plan, what).toContainEqual(expect.stringMatching(seek));
  }

  /**
   * A page is a deferred join: the inner query seeks in the index of the most selective label,
   * with the date range and the cursor in the seek, reads index entries only (COVERING) and
   * yields them in order (no TEMP B-TREE); the outer one reads the page's rows by primary key.
   * Nothing scans the reports: `SCAN page` is the inner query's at most `limit` rows.
   */
  it('pages every combination of the five filters by a covering seek, newest first, unsorted', async () => {
    for (const { filters, start } of PAGES) {
      const [plan] = await plans(() =>
        listReportsPage(kysely, 'sqlite', PROJECT, filters, { ...start, limit: 50 }),
      );
      const text = plan!.join('\n');
      const what = `${JSON.stringify(filters)} ${Object.keys(start)[0]}`;
      const seek = plan!.find((step) => step.startsWith('SEARCH reports USING COVERING INDEX'));
      expect.soft(seek, what).toMatch(new RegExp(`INDEX ${pageIndex(filters)} \\(project_id=\\?`));
      const label = pageIndex(filters).replace('reports_by_project_', '');
      if (label !== 'time') {
        const column = { tool: 'tool_name', source: 'source', outcome: 'outcome' }[label];
        expect.soft(seek, what).toContain(`AND ${column}=?`);
      }
      if ('after' in start) expect.soft(seek, what).toContain('(created_at,id)<(?,?)');
      else if (filters.from !== undefined || filters.before !== undefined)
        expect.soft(seek, what).toMatch(/created_at[<>]/);
      expect
        .soft(text, what)
        .toMatch(/SEARCH reports USING (INDEX sqlite_autoindex_reports_1|PRIMARY KEY) \(id=\?\)/);
      expect.soft(text, what).not.toMatch(/SCAN reports/);
      expect.soft(text, what).not.toMatch(/TEMP B-TREE/);
    }
  });

  it('counts every filter by seeking on it', async () => {
    const counts: [string, (filters: StatsFilters) => Promise<unknown>][] = [
      ['by outcome', (filters) => countReportsByOutcome(kysely, 'sqlite', PROJECT, filters)],
      ['by day', (filters) => countByDay(kysely, 'sqlite', PROJECT, filters)],
      ['by tool', (filters) => countByTool(kysely, 'sqlite', PROJECT, filters)],
    ];
    for (const [name, count] of counts) {
      // The tools table is never filtered by tool.
      const reachable = name === 'by tool' ? FILTERS.filter((f) => !f.toolName) : FILTERS;
      for (const filters of reachable) {
        const [plan] = await plans(() => count(filters));
        expectSeek(plan, filters, `${name} ${JSON.stringify(filters)}`);
      }
    }
  });

  it('counts date ranges from the rollups by seeking, with at most two partial hours of reports', async () => {
    // Bounds inside an hour, so every range has whole days, whole hours and partial hours.
    const from = new Date('2026-01-01T05:30:00.123Z');
    const before = new Date('2026-01-31T10:15:00.000Z');
    const ranged: StatsFilters[] = [];
    for (const toolName of [undefined, 'search']) {
      for (const source of [undefined, 'cli']) {
        for (const range of [{ from }, { before }, { from, before }]) {
          ranged.push({ toolName, source, ...range });
        }
      }
    }
    const counts: [string, (filters: StatsFilters) => Promise<unknown>][] = [
      ['by outcome', (f) => countOutcomesInRange(kysely, 'sqlite', PROJECT, f)],
      ['by day', (f) => countByDayInRange(kysely, 'sqlite', PROJECT, f)],
      ['by tool', (f) => countByToolInRange(kysely, 'sqlite', PROJECT, f)],
      ['by source', (f) => countBySourceInRange(kysely, 'sqlite', PROJECT, f, 50)],
    ];
    for (const [name, count] of counts) {
      for (const filters of ranged) {
        const what = `${name} ${JSON.stringify(filters)}`;
        for (const plan of await plans(() => count(filters))) {
          const steps = plan.filter((step) => /^(SCAN|SEARCH) report/.test(step));
          // Every table is sought, never read whole (the union's own result is scanned).
          for (const step of steps) expect.soft(step, what).toMatch(/^SEARCH /);
          const reports = steps.filter((step) => /^SEARCH reports /.test(step));
          const rollups = steps.filter((step) => /^SEARCH report_rollups/.test(step));
          expect.soft(reports.length, what).toBeLessThanOrEqual(2);
          for (const step of reports) expectSeek([step], filters, what);
          expect.soft(rollups.length, what).toBeGreaterThanOrEqual(1);
          for (const step of rollups) {
            expect
              .soft(step, what)
              .toMatch(
                /^SEARCH report_rollups\w* USING .*\(project_id=\?.*\b(minute|hour|day|week)[<>]/,
              );
          }
        }
      }
    }
  });

  it('reads each count from the rollup with the fewest labels that holds what it asks (0015, 0016)', async () => {
    const from = new Date('2026-01-01T05:30:00.123Z');
    const before = new Date('2026-01-31T10:15:00.000Z');
    const cases: [string, () => Promise<unknown>, RegExp[]][] = [
      [
        'timeseries, no filter',
        () => countByDayInRange(kysely, 'sqlite', PROJECT, { from, before }),
        [
          /report_rollups_day_outcomes/,
          /report_rollups_hour_outcomes/,
          /report_rollups_minute_outcomes/,
        ],
      ],
      [
        'tools table, no source',
        () => countByToolInRange(kysely, 'sqlite', PROJECT, { from, before }),
        [/report_rollups_week_tools/, /report_rollups_day_tools/, /report_rollups /],
      ],
      [
        'sources list, no tool',
        () => countBySourceInRange(kysely, 'sqlite', PROJECT, { from, before }, 50),
        [/report_rollups_day_sources/, /report_rollups /],
      ],
      [
        'outcomes under a tool',
        () => countOutcomesInRange(kysely, 'sqlite', PROJECT, { toolName: 'search', from, before }),
        [/report_rollups_week_tools/, /report_rollups_day_tools/, /report_rollups /],
      ],
    ];
    for (const [what, count, tables] of cases) {
      for (const plan of await plans(count)) {
        const text = plan.join('\n');
        for (const table of tables) expect.soft(text, what).toMatch(table);
        // Never the full daily table, which holds a row per label combination a day.
        expect.soft(text, what).not.toMatch(/report_rollups_daily/);
      }
    }
  });

  it("pages and counts an issue's reports, and finds those still to group, through an index", async () => {
    const issueId = 'c'.repeat(32);
    const [page] = await plans(() =>
      listReportsPage(kysely, 'sqlite', PROJECT, { issueId }, { offset: 0, limit: 50 }),
    );
    expect(page!.join('\n')).toMatch(
      /SEARCH report_issues USING (COVERING )?INDEX report_issues_by_project_issue \(project_id=\? AND issue_id=\?\)/,
    );
    expect(page!.join('\n')).not.toMatch(/TEMP B-TREE/);
    // With another label: checked on each of the issue's reports, found by its key.
    const [labelled] = await plans(() =>
      listReportsPage(
        kysely,
        'sqlite',
        PROJECT,
        { issueId, outcome: 'failure' },
        { offset: 100, limit: 50 },
      ),
    );
    expect(labelled!.join('\n')).toMatch(
      /SEARCH report_issues USING (COVERING )?INDEX report_issues_by_project_issue/,
    );
    expect(labelled!.join('\n')).not.toMatch(/SCAN reports|TEMP B-TREE/);
    const [counts] = await plans(() =>
      countReportsByOutcome(kysely, 'sqlite', PROJECT, { issueId }),
    );
    expect(counts!.join('\n')).toMatch(/INDEX report_issues_by_project_issue/);
    // The grouper's batch (migration 0019): the queue in its index's order, then each report
    // and its row of report_issues by key. Two reports queued for the while.
    const named = ['a'.repeat(32), 'b'.repeat(32)];
    await kysely
      .insertInto('grouping_queue')
      .values({
        id: named[0]!,
        created_at: '2020-01-01T00:00:00.000Z',
        report_ids: JSON.stringify(named),
      })
      .execute();
    const [queue, waiting] = await plans(() => listWaitingReports(kysely, 'sqlite', 200, 'recent'));
    await kysely.deleteFrom('grouping_queue').execute();
    expect(queue!.join('\n')).toMatch(/SCAN grouping_queue USING INDEX grouping_queue_by_time/);
    expect(queue!.join('\n')).not.toMatch(/TEMP B-TREE/);
    // A batch's reports are sorted (at most a batch of them), never scanned for.
    expect(waiting).toEqual([
      expect.stringMatching(/^SEARCH reports USING INDEX \w+ \(id=\?\)/),
      expect.stringMatching(/^SEARCH report_issues USING PRIMARY KEY \(report_id=\?\)/),
      'USE TEMP B-TREE FOR ORDER BY',
    ]);
    // Asked by the report writer before each chunk it groups, and by the background grouper
    // before it takes the write lock: it scanned all of the issue index when it had no order.
    const [peek] = await plans(() => anyReportWaiting(kysely, 'sqlite', 'recent'));
    expect(peek!.join('\n')).toMatch(
      /SCAN grouping_queue USING (COVERING )?INDEX grouping_queue_by_time/,
    );
    expect(peek!.join('\n')).not.toMatch(/TEMP B-TREE/);
  });

  it("lists issues over a date range by seeking each issue's reports in the range, never the project's whole history", async () => {
    for (const q of ISSUE_QUERIES) {
      for (const run of issueQueries(kysely, q)) {
        const [plan] = await plans(run);
        const what = JSON.stringify(q);
        const text = plan!.join('\n');
        expect.soft(text, what).not.toMatch(/SCAN (reports|report_issues|issues)/);
        expect.soft(text, what).toMatch(/SEARCH issues USING (COVERING )?INDEX issues_by_project_/);
        const reports = plan!.filter((step) => /^(SCAN|SEARCH) report_issues/.test(step));
        expect.soft(reports.length, what).toBeGreaterThan(0);
        for (const step of reports) {
          expect
            .soft(step, what)
            .toMatch(
              /^SEARCH report_issues USING COVERING INDEX report_issues_by_project_issue \(project_id=\? AND issue_id=\? AND created_at[<>]/,
            );
        }
      }
    }
  });

  it('seeks a deep page in the day and hour rollups with the fewest labels, never in the reports', async () => {
    // One day and one hour of each table to land in, so that both reads of the seek run.
    const rows: [string, string, Record<string, string>][] = [
      ['report_rollups_day_outcomes', 'day', {}],
      ['report_rollups_day_tools', 'day', { tool_name: 'search' }],
      ['report_rollups_day_sources', 'day', { source: 'cli' }],
      ['report_rollups_daily', 'day', { tool_name: 'search', source: 'cli' }],
      ['report_rollups_hour_outcomes', 'hour', {}],
      ['report_rollups', 'hour', { tool_name: 'search', source: 'cli' }],
    ];
    sqlite.pragma('foreign_keys = OFF');
    for (const [table, column, labels] of rows) {
      const at = column === 'day' ? '2026-01-20T00:00:00.000Z' : '2026-01-20T05:00:00.000Z';
      const columns = ['project_id', column, ...Object.keys(labels), 'outcome', 'count'];
      sqlite
        .prepare(
          `insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`,
        )
        .run(PROJECT, at, ...Object.values(labels), 'failure', 10);
    }
    const always = { unlabelled: 0, labelled: 0 };
    const cases: [ReportFilters, RegExp, RegExp][] = [
      [{}, /report_rollups_day_outcomes/, /report_rollups_hour_outcomes/],
      [
        { outcome: 'failure', from: FROM },
        /report_rollups_day_outcomes/,
        /report_rollups_hour_outcomes/,
      ],
      [{ toolName: 'search' }, /report_rollups_day_tools/, /report_rollups /],
      [{ source: 'cli' }, /report_rollups_day_sources/, /report_rollups /],
      [{ toolName: 'search', source: 'cli' }, /report_rollups_daily/, /report_rollups /],
    ];
    try {
      for (const [filters, day, hour] of cases) {
        const what = JSON.stringify(filters);
        const steps = await plans(() =>
          seekDeepPage(kysely, PROJECT, filters, { offset: 5 }, always),
        );
        expect(steps, what).toHaveLength(2);
        const [first, second] = steps.map((plan) => plan.join('\n'));
        expect.soft(first, what).toMatch(day);
        expect.soft(second, what).toMatch(hour);
        // The hours of one day: a seek on the key's bucket range.
        expect
          .soft(second, what)
          .toMatch(/SEARCH report_rollups\w* USING .*\(project_id=\? AND hour>\? AND hour<\?\)/);
        for (const text of [first, second]) {
          expect.soft(text, what).toMatch(/SEARCH report_rollups\w* USING .*\(project_id=\?/);
          expect.soft(text, what).not.toMatch(/SCAN report_rollups|\breports\b/);
        }
      }
    } finally {
      for (const [table] of rows)
        sqlite.prepare(`delete from ${table} where project_id = ?`).run(PROJECT);
      sqlite.pragma('foreign_keys = ON');
    }
  });

  it('seeks for the account overview, a report by id and a resumed stream too', async () => {
    const all = [
      ...(await plans(() => findReportById(kysely, PROJECT))),
      ...(await plans(() => listReportsAfterId(kysely, PROJECT, PROJECT, 100))),
    ];
    for (const plan of all) {
      expect(plan.join('\n')).toMatch(/SEARCH reports USING/);
      expect(plan.join('\n')).not.toMatch(/SCAN reports(?! USING)/);
    }
    // The overview's last 7 days: each project of the account, then its rollups and reports.
    const [overview] = await plans(() =>
      countOutcomesByProjectSince(kysely, 'b'.repeat(32), new Date('2026-01-01T05:30:00.123Z')),
    );
    const tables = overview!.filter((step) => /^(SCAN|SEARCH) (projects|report)/.test(step));
    expect(tables.length).toBeGreaterThan(0);
    for (const step of tables) expect(step).toMatch(/^SEARCH /);
  });
});

/**
 * The same pages on PostgreSQL, planned with sequential scans and sorts priced out
 * (`enable_seqscan`, `enable_sort` off): a plan that still reads the whole table or sorts under
 * the page's LIMIT has no index that gives the page in order. Empty tables: the plan shows what
 * the indexes make possible; with statistics the planner may still prefer a bitmap scan for a
 * combination it knows to be rare, which reads only the matching entries.
 */
describe.runIf(DIALECTS.includes('postgres'))('query plans of the reports on PostgreSQL', () => {
  let planning: PlanningDatabase;
  let kysely: Kysely<DB>;

  beforeAll(async () => {
    planning = await openPlanningDatabase('set enable_seqscan = off; set enable_sort = off');
    ({ kysely } = planning);
  });
  afterAll(() => planning.close());

  const planOf = (run: () => Promise<unknown>) => planning.planOf(run);

  it("lists issues over a date range with each issue's reports read by issue and range", async () => {
    for (const q of ISSUE_QUERIES) {
      for (const run of issueQueries(kysely, q)) {
        const all = await planOf(run);
        const what = JSON.stringify(q);
        const onTables = all.filter((node) => node['Relation Name'] !== undefined);
        expect
          .soft(
            onTables.map((node) => node['Node Type']),
            what,
          )
          .not.toContain('Seq Scan');
        const onReports = all.filter((node) => node['Relation Name'] === 'report_issues');
        expect.soft(onReports.length, what).toBeGreaterThan(0);
        for (const node of onReports) {
          // The issue is bound in the index condition: only its entries in the range are read.
          expect.soft(node['Index Name'], what).toBe('report_issues_by_project_issue');
          expect.soft(node['Index Cond'], what).toMatch(/issue_id = issues\.id/);
          expect.soft(node['Index Cond'], what).toMatch(/created_at [<>]/);
        }
      }
    }
  });

  it('pages every combination of the five filters through an index, without sorting', async () => {
    for (const { filters, start } of PAGES) {
      const all = await planOf(() =>
        listReportsPage(kysely, 'postgres', PROJECT, filters, { ...start, limit: 50 }),
      );
      const what = `${JSON.stringify(filters)} ${Object.keys(start)[0]}`;
      const onReports = all.filter((node) => node['Relation Name'] === 'reports');
      expect
        .soft(
          onReports.map((node) => node['Node Type']),
          what,
        )
        .not.toContain('Seq Scan');
      expect
        .soft(
          onReports.some((node) => node['Index Name']?.startsWith('reports_by_project_')),
          what,
        )
        .toBe(true);
      expect
        .soft(
          all.map((node) => node['Node Type']),
          what,
        )
        .not.toContain('Sort');
    }
  });

  it("reads an issue's page through report_issues' index (migration 0017)", async () => {
    // (The grouper's batch: grouping-plans.happy.test.ts.)
    const page = await planOf(() =>
      listReportsPage(
        kysely,
        'postgres',
        PROJECT,
        { issueId: 'c'.repeat(32), outcome: 'failure' },
        { offset: 100, limit: 50 },
      ),
    );
    expect(page.map((node) => node['Index Name'])).toContain('report_issues_by_project_issue');
    expect(page.map((node) => node['Node Type'])).not.toContain('Sort');
  });
});
