import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  DIALECTS,
  type TestDatabase,
} from '../../../../test/harness/databases.js';
import { ensureAccount } from '../../src/accounts/account.service.js';
import { type Database, openDatabase } from '../../src/db/database.js';
import { newId } from '../../src/ids.js';
import { createProject } from '../../src/projects/project.service.js';
import { ROLLUP_GRAINS, rollupColumns, rollupKey } from '../../src/reports/report-rollup-key.js';
import { migratorOf } from '../support/migrator.js';

/**
 * Migration 0010 fills the rollups (hourly and daily) from the reports already stored, and 0015
 * the narrower ones (by tool, by source, by outcome alone; minutes), and 0016 the weeks by
 * tool from 0015's days, so an upgraded database
 * answers date ranges right at once: every report counted once, in its UTC hour, whatever the
 * session's time zone (PostgreSQL here runs in Asia/Kolkata, +05:30, where a local hour is not
 * a UTC hour), and on SQLite the writer's inbox too (committed reports not moved yet).
 */
describe.each(DIALECTS)('migrations 0010, 0015 and 0016 on %s', (dialect) => {
  let testDb: TestDatabase;
  let database: Database;
  afterEach(async () => {
    await database.close();
    await testDb.drop();
  });

  it('backfills the rollups from the stored reports, per UTC hour and day', async () => {
    testDb = await createTestDatabase(dialect);
    database = openDatabase(
      dialect === 'postgres' ? `${testDb.url}?options=-c%20timezone%3DAsia%2FKolkata` : testDb.url,
    );
    const migrator = migratorOf(database);
    const before = await migrator.migrateTo('0009-redaction-and-label-caps');
    expect(before.error).toBeUndefined();

    const db = database.kysely;
    const account = await ensureAccount(db, { email: 'm@example.test', password: null });
    const { project } = await createProject(db, account.id, 'upgraded');
    const at = [
      ['2026-03-09T10:00:00.000Z', 'search', 'cli', 'success'],
      ['2026-03-09T10:59:59.999Z', 'search', 'cli', 'success'],
      ['2026-03-09T11:00:00.000Z', 'search', 'cli', 'success'],
      ['2026-03-09T11:29:00.000Z', null, null, 'failure'],
      ['2026-03-09T11:31:00.000Z', null, null, 'failure'],
      // 05:29 on the 9th in Kolkata, still the 8th in UTC: a local day is not a UTC day.
      ['2026-03-08T23:59:59.999Z', 'late', null, 'request'],
    ] as const;
    for (const [time, toolName, source, outcome] of at) {
      const createdAt = new Date(time);
      // As the writers of schema 0009 stored a report (no rollups yet).
      await sql`
        insert into reports (id, project_id, outcome, tool_name, source, details, created_at)
        values (${newId(createdAt.getTime())}, ${project.id}, ${outcome}, ${toolName}, ${source},
          'stored before 0010', ${createdAt.toISOString()})
      `.execute(db);
    }
    if (dialect === 'sqlite') {
      await sql`
        insert into report_inbox (id, project_id, outcome, tool_name, source, details, created_at)
        values (${newId()}, ${project.id}, 'success', 'search', 'cli', 'in the inbox',
          '2026-03-09T10:30:00.000Z')
      `.execute(db);
    }

    const after = await migrator.migrateToLatest();
    expect(after.error).toBeUndefined();
    // SQLite's text exactly as the writers store it (toISOString), compared as text.
    const text = (start: Date | string) =>
      typeof start === 'string' ? start : start.toISOString();
    const hourly = await db
      .selectFrom('report_rollups')
      .select(['hour', 'tool_name', 'source', 'outcome', 'count'])
      .where('project_id', '=', project.id)
      .orderBy('hour')
      .orderBy('tool_name')
      .execute();
    const searched = dialect === 'sqlite' ? 3 : 2;
    expect(
      hourly.map((row) => ({ ...row, hour: text(row.hour), count: Number(row.count) })),
    ).toEqual([
      {
        hour: '2026-03-08T23:00:00.000Z',
        tool_name: 'late',
        source: '',
        outcome: 'request',
        count: 1,
      },
      {
        hour: '2026-03-09T10:00:00.000Z',
        tool_name: 'search',
        source: 'cli',
        outcome: 'success',
        count: searched,
      },
      { hour: '2026-03-09T11:00:00.000Z', tool_name: '', source: '', outcome: 'failure', count: 2 },
      {
        hour: '2026-03-09T11:00:00.000Z',
        tool_name: 'search',
        source: 'cli',
        outcome: 'success',
        count: 1,
      },
    ]);
    const daily = await db
      .selectFrom('report_rollups_daily')
      .select(['day', 'tool_name', 'source', 'outcome', 'count'])
      .where('project_id', '=', project.id)
      .orderBy('day')
      .orderBy('tool_name')
      .execute();
    expect(daily.map((row) => ({ ...row, day: text(row.day), count: Number(row.count) }))).toEqual([
      {
        day: '2026-03-08T00:00:00.000Z',
        tool_name: 'late',
        source: '',
        outcome: 'request',
        count: 1,
      },
      { day: '2026-03-09T00:00:00.000Z', tool_name: '', source: '', outcome: 'failure', count: 2 },
      {
        day: '2026-03-09T00:00:00.000Z',
        tool_name: 'search',
        source: 'cli',
        outcome: 'success',
        count: searched + 1,
      },
    ]);

    // Every rollup, 0015's and 0016's included, holds what the write path would have added for the
    // reports (rollupKey), no more and no less.
    const stored = at.map(([time, toolName, source, outcome]) => ({
      projectId: project.id,
      createdAt: new Date(time),
      toolName: toolName as string | null,
      source: source as string | null,
      outcome: outcome as string,
    }));
    if (dialect === 'sqlite') {
      stored.push({
        projectId: project.id,
        createdAt: new Date('2026-03-09T10:30:00.000Z'),
        toolName: 'search',
        source: 'cli',
        outcome: 'success',
      });
    }
    for (const grain of ROLLUP_GRAINS) {
      const expected = new Map<string, number>();
      for (const report of stored) {
        const key = JSON.stringify(rollupKey(grain, report));
        expected.set(key, (expected.get(key) ?? 0) + 1);
      }
      const columns = rollupColumns(grain);
      const { rows } = await sql<Record<string, unknown>>`
        select ${sql.join(columns.map((column) => sql.ref(column)))}, count
        from ${sql.table(grain.table)} where project_id = ${project.id}
      `.execute(db);
      const actual = new Map(
        rows.map((row) => [
          JSON.stringify(
            columns.map((c) => (c === grain.column ? text(row[c] as Date | string) : row[c])),
          ),
          Number(row.count),
        ]),
      );
      expect(actual, grain.table).toEqual(expected);
    }
  });
});
