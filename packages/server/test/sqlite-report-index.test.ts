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
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { DB } from '../src/db/schema.js';
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
 * SQLite keeps one index on reports besides its primary key (migration 0005): every query of
 * the reports must use it (or the key), never read the whole table, and a page must come out
 * of it already in order. Plans are read as the server gets them: the real queries, compiled
 * by Kysely, on a database without ANALYZE statistics (the server never runs ANALYZE).
 */
describe('reports on SQLite', () => {
  let database: TestDatabase;
  let sqlite: SQLite.Database;
  let kysely: Kysely<DB>;
  const queries: CompiledQuery[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    const db = openDatabase(database.url);
    await migrateToLatest(db);
    await db.close();
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

  it('has one index on reports besides the primary key', () => {
    const indexes = sqlite
      .prepare<[], { name: string }>(
        "select name from sqlite_master where type = 'index' and tbl_name = 'reports' order by name",
      )
      .all()
      .map((row) => row.name);
    expect(indexes).toEqual(['reports_by_project_time_labels', 'sqlite_autoindex_reports_1']);
  });

  it('pages every filter from the index, newest first, without sorting', async () => {
    for (const filters of LIST_FILTERS) {
      const [plan] = await plans(() =>
        listReportsPage(kysely, PROJECT, filters, { offset: 0, limit: 50 }),
      );
      const what = JSON.stringify(filters);
      expect(plan, what).toContainEqual(
        expect.stringMatching(/^SEARCH reports USING INDEX reports_by_project_time_labels/),
      );
      expect(plan!.join('\n'), what).not.toMatch(/TEMP B-TREE/);
    }
  });

  it('counts every filter from the index alone', async () => {
    const counts: [string, (filters: StatsFilters) => Promise<unknown>][] = [
      ['by outcome', (filters) => countReportsByOutcome(kysely, PROJECT, filters)],
      ['by day', (filters) => countByDay(kysely, 'sqlite', PROJECT, filters)],
      ['by tool', (filters) => countByTool(kysely, PROJECT, filters)],
    ];
    for (const [name, count] of counts) {
      for (const filters of FILTERS) {
        const [plan] = await plans(() => count(filters));
        expect(plan, `${name} ${JSON.stringify(filters)}`).toContainEqual(
          expect.stringMatching(
            /^SEARCH reports USING COVERING INDEX reports_by_project_time_labels/,
          ),
        );
      }
    }
  });

  it('never scans the reports table', async () => {
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
