/**
 * The read benchmark's seeder (bench/seed*.ts) inserts reports straight into the database and
 * rebuilds the server's counters from them: `report_counts` and the hourly and daily rollups.
 * On the real schema, its rollups must equal the reports counted per UTC hour and day, and the
 * API's answers from counters and rollups must agree with counting the reports.
 */
import type { ReportList } from '@debrief/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { seedReports } from '../../../../bench/seed.js';
import {
  closeSeedConnection,
  openSeedConnection,
  query,
} from '../../../../bench/seed-connection.js';
import { rebuildCounters } from '../../../../bench/seed-counters.js';
import { groupSeededReports } from '../../../../bench/seed-issues.js';
import {
  createTestDatabase,
  DIALECTS,
  type TestDatabase,
} from '../../../../test/harness/databases.js';
import { startTestServer } from '../../../../test/harness/test-server.js';

const HOUR = 3_600_000;

/** A bucket as read back from either dialect (ISO text on SQLite, a Date on PostgreSQL). */
const asIso = (value: unknown) =>
  value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString();

describe.each(DIALECTS)('bench seeder on %s', (dialect) => {
  let database: TestDatabase | null = null;
  afterEach(async () => {
    await database?.drop();
    database = null;
  });

  it('on the real schema, the seeded counters answer as counting the reports does', async () => {
    database = await createTestDatabase(dialect);
    // The probe goes through the API, as in the bench: the server writes its counter rows.
    let server = await startTestServer(dialect, {}, { databaseUrl: database.url });
    const tenant = await server.tenant();
    const probe = await fetch(`${server.url}/v1/reports`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ingest_key: tenant.ingestKey, outcome: 'failure', details: 'probe' }),
    });
    expect(probe.status).toBe(201);
    await server.close();

    const conn = await openSeedConnection(database.url);
    try {
      const spec = { projectId: tenant.projectId, count: 3000, endMs: Date.now() - 60_000 };
      await seedReports(conn, { ...spec, spanMs: 90 * 24 * HOUR, rareOldest: true });
      expect(await groupSeededReports(conn, [tenant.projectId])).toBe(true);
      expect(await rebuildCounters(conn, [tenant.projectId])).toBe(true);
      // Every seeded report has its issue, so the server starts with nothing to group.
      const [ungrouped] = await query<{ n: number | string }>(
        conn,
        `select count(*) as n from reports r
         left join report_issues i on i.report_id = r.id
         where r.project_id = ? and i.issue_id is null`,
        [tenant.projectId],
      );
      expect(Number(ungrouped?.n)).toBe(0);

      const reports = await query<{ created_at: unknown }>(
        conn,
        'select created_at from reports where project_id = ?',
        [tenant.projectId],
      );
      for (const [table, column, length] of [
        ['report_rollups', 'hour', 13],
        ['report_rollups_daily', 'day', 10],
      ] as const) {
        const expected = new Map<string, number>();
        for (const { created_at } of reports) {
          const start = asIso(created_at).slice(0, length);
          const key = new Date(
            length === 13 ? `${start}:00:00Z` : `${start}T00:00:00Z`,
          ).toISOString();
          expected.set(key, (expected.get(key) ?? 0) + 1);
        }
        const rows = await query<{ bucket: unknown; n: number | string }>(
          conn,
          `select ${column} as bucket, sum(count) as n from ${table} where project_id = ? group by ${column}`,
          [tenant.projectId],
        );
        expect(new Map(rows.map((row) => [asIso(row.bucket), Number(row.n)]))).toEqual(expected);
      }
    } finally {
      await closeSeedConnection(conn);
    }

    server = await startTestServer(dialect, {}, { databaseUrl: database.url });
    try {
      const read = async (query: string) => {
        const response = await fetch(
          `${server.url}/v1/dashboard/${tenant.projectId}/reports${query}`,
          { headers: { authorization: `Bearer ${tenant.apiKey}` } },
        );
        expect(response.status).toBe(200);
        return (await response.json()) as ReportList;
      };
      // Without a range the stats come from report_counts; with one, from the rollups.
      const counters = await read('');
      const counted = await read('?from=2000-01-01');
      expect(counters.stats.total).toBe(3001);
      expect(counters.stats).toEqual(counted.stats);
      const tool = await read('?tool_name=tool_05&source=cursor');
      const toolCounted = await read('?tool_name=tool_05&source=cursor&from=2000-01-01');
      // Every combination of the filters occurs (a tool is reported from every source).
      expect(tool.stats.total).toBeGreaterThan(0);
      expect(tool.stats).toEqual(toolCounted.stats);
    } finally {
      await server.close();
    }
  });
});
