import SQLite from 'better-sqlite3';
import { type CompiledQuery, Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/harness/databases.js';
import {
  countByDay,
  countByTool,
  countRecentByProject,
  type StatsFilters,
} from '../src/console/stats.repository.js';
import { openMigratedDatabase } from '../src/db/migrate.js';
import type { DB } from '../src/db/schema.js';
import { listUngroupedReports } from '../src/issues/grouping.repository.js';
import {
  countReportsByOutcome,
  findReportById,
  listReportsAfterId,
  listReportsPage,
  type ReportFilters,
} from '../src/reports/report.repository.js';

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

/**
 * "Indexes that serve every filter": on SQLite every query of the reports, for every filter
 * combination, must seek through an index (or the primary key), never read the whole table, and
 * a page must come out of its index already in order. Plans are read as the server gets them:
 * the real queries, compiled by Kysely, on a database without ANALYZE statistics (the server
 * never runs ANALYZE). Fewer indexes would make ingest faster and turn these seeks into walks
 * (BENCHMARKS.md, item 7).
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

  it('pages every filter by seeking on it, newest first, without sorting', async () => {
    for (const filters of LIST_FILTERS) {
      const [plan] = await plans(() =>
        listReportsPage(kysely, PROJECT, filters, { offset: 0, limit: 50 }),
      );
      const what = JSON.stringify(filters);
      expectSeek(plan, filters, what);
      expect(plan!.join('\n'), what).not.toMatch(/TEMP B-TREE/);
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

  it("pages and counts an issue's reports, and finds those still to group, through an index (issue 18)", async () => {
    const issueId = 'c'.repeat(32);
    const [page] = await plans(() =>
      listReportsPage(kysely, PROJECT, { issueId }, { offset: 0, limit: 50 }),
    );
    expect(page!.join('\n')).toMatch(
      /SEARCH reports USING (COVERING )?INDEX reports_by_project_issue \(project_id=\? AND issue_id=\?\)/,
    );
    expect(page!.join('\n')).not.toMatch(/TEMP B-TREE/);
    const [counts] = await plans(() =>
      countReportsByOutcome(kysely, 'sqlite', PROJECT, { issueId }),
    );
    expect(counts!.join('\n')).toMatch(/INDEX reports_by_project_issue/);
    const [ungrouped] = await plans(() => listUngroupedReports(kysely, 200));
    expect(ungrouped!.join('\n')).toMatch(/SCAN reports USING INDEX reports_ungrouped/);
    expect(ungrouped!.join('\n')).not.toMatch(/TEMP B-TREE/);
  });

  it('seeks for the account overview, a report by id and a resumed stream too', async () => {
    const all = [
      ...(await plans(() => countRecentByProject(kysely, 'b'.repeat(32), FROM))),
      ...(await plans(() => findReportById(kysely, PROJECT))),
      ...(await plans(() => listReportsAfterId(kysely, PROJECT, PROJECT, 100))),
    ];
    for (const plan of all) {
      expect(plan.join('\n')).toMatch(/SEARCH reports USING/);
      expect(plan.join('\n')).not.toMatch(/SCAN reports(?! USING)/);
    }
  });
});
