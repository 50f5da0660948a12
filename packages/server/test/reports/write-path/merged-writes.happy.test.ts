import { CompiledQuery, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  DIALECTS,
  type TestDatabase,
} from '../../../../../test/harness/databases.js';
import type { Database } from '../../../src/db/database.js';
import { openMigratedDatabase } from '../../../src/db/migrate.js';
import { statementName } from '../../../src/db/named-statements.js';
import { newId } from '../../../src/ids.js';
import { ROLLUP_GRAINS } from '../../../src/reports/report-rollup-key.js';
import {
  type CounterRow,
  insertReports,
  mergeWrites,
  readCounters,
} from '../../../src/reports/write-path/batch-statements.js';
import { importReports } from '../../../src/reports/write-path/index.js';
import type { NewReport } from '../../../src/reports/write-path/report-writer.js';

/**
 * The write path's statements that return nothing (the reports' insert, the counter upserts)
 * reach PostgreSQL as one statement of data-modifying WITH parts (batch-statements.ts
 * mergeWrites): renumbered placeholders, split before PostgreSQL's parameter limit, and every
 * row of every part written. The counters read before planning go as one statement too
 * (readCounters), each row naming its table and key.
 */
const START = Date.parse('2026-03-09T00:00:00.000Z');
const TOOLS = [null, 'search', 'fetch', 'write'];
const SOURCES = [null, 'cli', 'ide'];
const OUTCOMES = ['success', 'failure', 'confusing', 'gave_up', 'request'];

function reports(projectId: string, count: number): NewReport[] {
  return Array.from({ length: count }, (_, i) => {
    const createdAt = new Date(START + i * 7_919);
    return {
      id: newId(createdAt.getTime()),
      projectId,
      outcome: OUTCOMES[i % OUTCOMES.length]!,
      toolName: TOOLS[i % TOOLS.length]!,
      source: SOURCES[i % SOURCES.length]!,
      details: `report ${i}`,
      metadata: null,
      createdAt,
      redactions: 0,
    };
  });
}

describe('merged writes', () => {
  it('writes reports on PostgreSQL with a text that is the same for any number of them, prepared by name', () => {
    const few = insertReports('postgres', 'reports', reports('p', 3));
    const many = insertReports('postgres', 'reports', reports('p', 7_000));
    expect(many.map((s) => s.sql)).toEqual(few.map((s) => s.sql));
    expect(many).toHaveLength(2);
    expect(many[1]!.sql).toMatch(/^insert into grouping_queue/);
    expect(many.map((s) => s.parameters.length)).toEqual([1, 1]);
    const merged = mergeWrites('postgres', many);
    expect(merged).toHaveLength(1);
    expect(merged[0]!.sql).toMatch(/^with w0 as \(insert into reports/);
    expect(merged[0]!.sql).toBe(mergeWrites('postgres', few)[0]!.sql);
    expect(statementName(merged[0]!.sql)).toBeDefined();
    // SQLite keeps its one-row statements, prepared once.
    const sqlite = insertReports('sqlite', 'reports', reports('p', 3));
    expect(sqlite).toHaveLength(4);
    expect(mergeWrites('sqlite', sqlite)).toBe(sqlite);
  });

  it('merges PostgreSQL statements with their placeholders renumbered, up to 60,000 parameters each', () => {
    const statement = (table: string, count: number) => ({
      sql: `insert into ${table} values (${Array.from({ length: count }, (_, i) => `$${i + 1}`).join(', ')})`,
      parameters: Array.from({ length: count }, (_, i) => `${table}${i}`),
      returnsRows: false,
    });
    const statements = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((t) => statement(t, 9_000));
    const merged = mergeWrites('postgres', statements);
    expect(merged.map((s) => s.parameters.length)).toEqual([54_000, 9_000]);
    for (const one of merged) {
      const numbers = [...one.sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]));
      expect(numbers).toEqual(Array.from({ length: one.parameters.length }, (_, i) => i + 1));
      expect(one.sql).toMatch(/^with w0 as \(insert into /);
    }
    expect(merged.flatMap((s) => s.parameters)).toEqual(statements.flatMap((s) => s.parameters));
  });

  describe.each(DIALECTS)('on %s', (dialect) => {
    let testDb: TestDatabase | null = null;
    let database: Database | null = null;
    afterEach(async () => {
      await database?.close();
      await testDb?.drop();
      database = null;
      testDb = null;
    });

    it('stores every report and counts each once in every counter and rollup', async () => {
      testDb = await createTestDatabase(dialect);
      ({ database } = await openMigratedDatabase(testDb.url));
      const db = database.kysely;
      const now = new Date().toISOString();
      await db
        .insertInto('accounts')
        .values({ id: 'a', email: 'a@example.com', created_at: now })
        .execute();
      await db
        .insertInto('projects')
        .values({ id: 'p', account_id: 'a', name: 'p', created_at: now })
        .execute();

      const count = 7_000;
      await db.transaction().execute((trx) => importReports(trx, dialect, reports('p', count)));

      const sum = async (table: string, column: string) => {
        const { rows } = await sql<{ n: number | string }>`
          select sum(${sql.ref(column)}) as n from ${sql.table(table)}
        `.execute(db);
        return Number(rows[0]?.n);
      };
      const stored = await db
        .selectFrom('reports')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(stored.n)).toBe(count);
      // All queued for the grouper (migration 0019), none placed yet.
      const queued = await db.selectFrom('grouping_queue').select('report_ids').execute();
      const ids = queued.flatMap((row) => JSON.parse(row.report_ids) as string[]);
      expect(new Set(ids).size).toBe(count);
      expect(ids).toHaveLength(count);
      const placed = await db
        .selectFrom('report_issues')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(placed.n)).toBe(0);
      expect(await sum('report_counts', 'count')).toBe(count);
      for (const grain of ROLLUP_GRAINS) expect(await sum(grain.table, 'count')).toBe(count);

      // The counters a batch reads before planning: several tables, on PostgreSQL one
      // statement; a missing row is created at 0, an existing one answers its count.
      const statements = readCounters(dialect, [
        {
          table: {
            table: 'report_counts',
            columns: ['project_id', 'tool_name', 'source', 'outcome'],
          },
          keys: [
            ['p', 'search', 'cli', 'failure'],
            ['p', 'none', '', 'success'],
          ],
        },
        {
          table: { table: 'usage_counters', columns: ['account_id', 'month'] },
          keys: [['a', '2026-03']],
        },
      ]);
      expect(statements.length).toBe(dialect === 'postgres' ? 1 : 3);
      const rows = await db.transaction().execute(async (trx) => {
        const all: CounterRow[] = [];
        for (const statement of statements) {
          const result = await trx.executeQuery<CounterRow>(
            CompiledQuery.raw(statement.sql, statement.parameters),
          );
          all.push(...result.rows);
        }
        return all;
      });
      const expected = reports('p', count).filter(
        (r) => r.toolName === 'search' && r.source === 'cli' && r.outcome === 'failure',
      ).length;
      expect(expected).toBeGreaterThan(0);
      expect(rows.map((row) => [row.counter, JSON.parse(row.key), Number(row.count)])).toEqual([
        ['report_counts', ['p', 'search', 'cli', 'failure'], expected],
        ['report_counts', ['p', 'none', '', 'success'], 0],
        ['usage_counters', ['a', '2026-03'], 0],
      ]);
    });
  });
});
