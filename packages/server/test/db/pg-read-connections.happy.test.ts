import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { createTestDatabase, DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer } from '../../../../test/harness/test-server.js';
import { timestamptzAsIso } from '../../src/db/pg-pool.js';
import { bearer, call } from '../support/http.js';

/** Runs `fn` on a connection to the test cluster's admin database. */
async function withAdmin(fn: (admin: pg.Client) => Promise<unknown>): Promise<void> {
  const admin = new pg.Client({ connectionString: inject('postgresUrl') ?? undefined });
  await admin.connect();
  try {
    await fn(admin);
  } finally {
    await admin.end();
  }
}

/** A PostgreSQL server with one read connection (what it holds is then what it prepared). */
async function oneReadConnection(outcomes: string[]) {
  const server = await startTestServer('postgres', { POSTGRES_READ_CONNECTIONS: '1' });
  const tenant = await server.tenant();
  for (const outcome of outcomes) {
    const sent = await call(`${server.url}/v1/reports`, {
      body: { ingest_key: tenant.ingestKey, outcome, details: `a ${outcome}` },
    });
    expect(sent.status).toBe(201);
  }
  return { server, tenant };
}

/** pg's own reading of a timestamptz, as ISO text: what the read connections must agree with. */
const asPgReadsIt = (text: string) =>
  (pg.types.getTypeParser(1184, 'text')(text) as Date).toISOString();

describe('the PostgreSQL connections: times as ISO text (pg-pool.ts), fixed reads prepared (pg-read-pool.ts)', () => {
  it("reads PostgreSQL's UTC text as the ISO text SQLite stores, truncated to the millisecond", () => {
    for (const text of [
      '2026-11-26 09:27:14+00',
      '2026-11-26 09:27:14.1+00',
      '2026-11-26 09:27:14.12+00',
      '2026-11-26 09:27:14.123+00',
      '2026-11-26 09:27:14.123999+00',
      '0001-01-01 00:00:00.5+00',
    ]) {
      expect(timestamptzAsIso(text)).toBe(asPgReadsIt(text));
    }
    expect(timestamptzAsIso('2026-11-26 09:27:14.123999+00')).toBe('2026-11-26T09:27:14.123Z');
  });

  it('reads any other form as pg does', () => {
    expect(timestamptzAsIso('2026-11-26 10:27:14.5+01')).toEqual(
      pg.types.getTypeParser(1184, 'text')('2026-11-26 10:27:14.5+01'),
    );
    expect(timestamptzAsIso('infinity')).toBe(Infinity);
  });

  it.runIf(DIALECTS.includes('postgres'))(
    'hands every read ISO text, on the read connections and the main ones alike, in UTC whatever the database says',
    async () => {
      // A database whose sessions start in another zone: the pools set their own.
      const database = await createTestDatabase('postgres');
      const name = new URL(database.url).pathname.slice(1);
      await withAdmin((admin) =>
        admin.query(`alter database ${name} set timezone = 'Europe/Berlin'`),
      );
      const server = await startTestServer('postgres', {}, { databaseUrl: database.url });
      try {
        const zone = CompiledQuery.raw('show timezone');
        expect((await server.ctx.db.executeQuery(zone)).rows).toEqual([{ TimeZone: 'UTC' }]);
        expect((await server.ctx.database.readPool!.execute(zone, undefined)).rows).toEqual([
          { TimeZone: 'UTC' },
        ]);
        const query = CompiledQuery.raw(`select $1::timestamptz as at, $2::timestamptz as whole`, [
          '2026-01-02 03:04:05.678912+02',
          '2026-01-02T03:04:05Z',
        ]);
        const read = await server.ctx.database.readPool!.execute(query, undefined);
        const main = await server.ctx.db.executeQuery(query);
        const expected = { at: '2026-01-02T01:04:05.678Z', whole: '2026-01-02T03:04:05.000Z' };
        expect(read.rows[0]).toEqual(expected);
        expect(main.rows[0]).toEqual(expected);
        // What pg would have read, as a Date: the same instant.
        expect(asPgReadsIt('2026-01-02 01:04:05.678912+00')).toBe(expected.at);
      } finally {
        await server.close();
        await database.drop();
      }
    },
  );

  it.runIf(DIALECTS.includes('postgres'))(
    'prepares the fixed reads by name, and plans the first page once per connection',
    async () => {
      const { server, tenant } = await oneReadConnection(['success', 'failure']);
      try {
        for (let i = 0; i < 8; i++) {
          const res = await call(`${server.url}/v1/dashboard/${tenant.projectId}/reports`, {
            headers: bearer(tenant.apiKey),
          });
          expect(res.status).toBe(200);
        }
        // Asked on the one read connection: what it holds prepared.
        const { rows } = await server.ctx.database.readPool!.execute(
          CompiledQuery.raw(
            'select name, statement, generic_plans, custom_plans from pg_prepared_statements',
          ),
          undefined,
        );
        const prepared = rows as {
          name: string;
          statement: string;
          generic_plans: number | string;
          custom_plans: number | string;
        }[];
        // The page, named; nothing ad hoc (this very statement is not). The unfiltered counts
        // read the per-outcome totals by key, on the main pool (read-routing.ts).
        expect(prepared.length).toBeGreaterThanOrEqual(1);
        expect(prepared.every((row) => row.name.startsWith('debrief_read_'))).toBe(true);
        const page = prepared.find((row) => /\blimit 51\b/.test(row.statement));
        expect(page, 'the first page, its row count written in').toBeDefined();
        expect(page!.statement).not.toMatch(/\boffset\b/);
        // Eight reads: five planned for their values, then PostgreSQL's generic plan, kept.
        expect(Number(page!.generic_plans)).toBeGreaterThan(0);
        expect(Number(page!.custom_plans) + Number(page!.generic_plans)).toBe(8);
      } finally {
        await server.close();
      }
    },
  );

  it.runIf(DIALECTS.includes('postgres'))(
    'reads on, unnamed from then on, when a pooler loses a named statement',
    async () => {
      const { server, tenant } = await oneReadConnection(['failure']);
      try {
        const page = () =>
          call<{ reports: unknown[] }>(`${server.url}/v1/dashboard/${tenant.projectId}/reports`, {
            headers: bearer(tenant.apiKey),
          });
        expect((await page()).status).toBe(200);
        // What a pooler in transaction mode does: the next session holds none of them, while pg
        // believes the connection still does.
        const pool = server.ctx.database.readPool!;
        const prepared = CompiledQuery.raw('select name from pg_prepared_statements');
        expect((await pool.execute(prepared, undefined)).rows.length).toBeGreaterThan(0);
        await pool.execute(CompiledQuery.raw('deallocate all'), undefined);
        for (let i = 0; i < 3; i++) {
          const res = await page();
          expect(res.status).toBe(200);
          expect(res.body.reports).toHaveLength(1);
        }
        // Nothing named again since.
        expect((await pool.execute(prepared, undefined)).rows).toEqual([]);
      } finally {
        await server.close();
      }
    },
  );
});
