/**
 * The read benchmark's seeder (bench/seed*.ts) rebuilds the server's counters from the reports
 * it inserts, including `report_rollups` in whatever form the schema measured buckets hours:
 * it learns the form from one rollup row the server wrote. Here each form it knows is
 * fabricated (a rollup table of that shape and one row for a probe report), and the rebuilt
 * rollups must equal the reports counted per hour in that form; and on the real schema the
 * seeded project's counters must agree with counting its reports.
 */
import type { ReportList } from '@debrief/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { seedReports } from '../../../bench/seed.js';
import {
  closeSeedConnection,
  openSeedConnection,
  query,
  type SeedConnection,
} from '../../../bench/seed-connection.js';
import { rebuildCounters } from '../../../bench/seed-counters.js';
import {
  createTestDatabase,
  DIALECTS,
  type TestDatabase,
  type TestDialect,
} from '../../../test/harness/databases.js';
import { startTestServer } from '../../../test/harness/test-server.js';

const PROJECT = 'b'.repeat(32);
const PROBE = 'probe-report';
const HOUR = 3_600_000;

interface HourForm {
  name: string;
  /** Column type of `hour` on this dialect. */
  type: string;
  /** The stored bucket of a time (as the driver returns it, made comparable). */
  bucket(ms: number): string;
  /** A value read back, made comparable with `bucket`. */
  read(value: unknown): string;
}

const iso = (ms: number) => new Date(Math.floor(ms / HOUR) * HOUR).toISOString();
const FORMS: Record<TestDialect, HourForm[]> = {
  sqlite: [
    { name: 'ISO text', type: 'text', bucket: iso, read: String },
    {
      name: 'text with a space, no zone',
      type: 'text',
      bucket: (ms) => `${iso(ms).slice(0, 10)} ${iso(ms).slice(11, 13)}:00:00`,
      read: String,
    },
    {
      name: 'epoch hours',
      type: 'integer',
      bucket: (ms) => String(Math.floor(ms / HOUR)),
      read: String,
    },
    {
      name: 'epoch seconds',
      type: 'integer',
      bucket: (ms) => String(Math.floor(ms / HOUR) * 3600),
      read: String,
    },
  ],
  postgres: [
    {
      name: 'timestamptz',
      type: 'timestamptz',
      bucket: iso,
      read: (value) => (value as Date).toISOString(),
    },
    { name: 'ISO text', type: 'text', bucket: iso, read: String },
    {
      name: 'epoch hours',
      type: 'bigint',
      bucket: (ms) => String(Math.floor(ms / HOUR)),
      read: String,
    },
  ],
};

async function fabricateSchema(conn: SeedConnection, form: HourForm, probeMs: number) {
  const time = conn.dialect === 'postgres' ? 'timestamptz' : 'text';
  await query(
    conn,
    `create table reports (id text primary key, project_id text not null, outcome text not null,
     tool_name text, source text, details text not null, metadata text, created_at ${time} not null)`,
  );
  await query(
    conn,
    `create table report_counts (project_id text, tool_name text, source text, outcome text,
     count integer, primary key (project_id, tool_name, source, outcome))`,
  );
  await query(
    conn,
    `create table report_rollups (project_id text, hour ${form.type}, tool_name text, source text,
     outcome text, count integer, primary key (project_id, hour, tool_name, source, outcome))`,
  );
  // The probe: one report and the rollup row the server would have written for it.
  await query(
    conn,
    `insert into reports (id, project_id, outcome, tool_name, source, details, created_at)
     values (?, ?, 'failure', 'search', 'cli', 'probe', ?)`,
    [PROBE, PROJECT, new Date(probeMs).toISOString()],
  );
  await query(conn, `insert into report_rollups values (?, ?, 'search', 'cli', 'failure', 1)`, [
    PROJECT,
    form.bucket(probeMs),
  ]);
}

describe.each(DIALECTS)('bench seeder on %s', (dialect) => {
  let database: TestDatabase | null = null;
  afterEach(async () => {
    await database?.drop();
    database = null;
  });

  it.each(FORMS[dialect].map((form) => [form.name, form] as const))(
    'rebuilds rollups stored as %s, equal to the reports counted per hour',
    async (_name, form) => {
      database = await createTestDatabase(dialect);
      const conn = await openSeedConnection(database.url);
      try {
        const now = Date.now();
        await fabricateSchema(conn, form, now);
        await seedReports(conn, { projectId: PROJECT, count: 600, spanMs: 5 * HOUR, endMs: now });
        expect(await rebuildCounters(conn, [PROJECT], PROBE)).toBe(true);

        const reports = await query<{ created_at: string | Date }>(
          conn,
          'select created_at from reports where project_id = ?',
          [PROJECT],
        );
        const expected = new Map<string, number>();
        for (const { created_at } of reports) {
          const key = form.bucket(new Date(created_at).getTime());
          expected.set(key, (expected.get(key) ?? 0) + 1);
        }
        const rollups = await query<{ hour: unknown; n: number | string }>(
          conn,
          'select hour, sum(count) as n from report_rollups where project_id = ? group by hour',
          [PROJECT],
        );
        const actual = new Map(rollups.map((row) => [form.read(row.hour), Number(row.n)]));
        expect(actual).toEqual(expected);
        expect(reports).toHaveLength(601);
      } finally {
        await closeSeedConnection(conn);
      }
    },
  );

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
      const [row] = await query<{ id: string }>(
        conn,
        'select id from reports where project_id = ?',
        [tenant.projectId],
      );
      const spec = { projectId: tenant.projectId, count: 3000, endMs: Date.now() - 60_000 };
      await seedReports(conn, { ...spec, spanMs: 90 * 24 * HOUR, rareOldest: true });
      await rebuildCounters(conn, [tenant.projectId], row?.id ?? '');
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
      // Without a range the stats come from report_counts; with one, from the reports.
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
