import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../../../../test/harness/databases.js';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { compiledShapes } from '../../src/db/compiled-shapes.js';
import type { DB } from '../../src/db/schema.js';

/**
 * A statement compiled once per shape (db/compiled-shapes.ts) must bind each call's own values
 * where the builder placed them, keep the builder's own constants, and say so loudly when a
 * builder wrote a value into the SQL text instead of binding it.
 */
describe.each(DIALECTS)('statements compiled once per shape on %s', (dialect) => {
  let server: TestServer;
  let db: Kysely<DB>;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    db = server.ctx.db;
  });
  afterAll(() => server.close());

  const projects = compiledShapes(
    (
      kysely: Kysely<DB>,
      shape: { named: boolean },
      p: { accountId: string; name: string | null; limit: number },
    ) => {
      let query = kysely
        .selectFrom('projects')
        .select(['id', 'name'])
        .where('account_id', '=', p.accountId)
        // A constant of the statement, bound by Kysely like a value: it must stay.
        .where('name', '<>', 'never a project name');
      if (shape.named) query = query.where('name', '=', p.name);
      return query.orderBy('name').limit(p.limit);
    },
  );

  it('binds every call its own values, once compiled, in each shape', async () => {
    const a = await server.tenant();
    const b = await server.tenant();
    const names = async (accountId: string, name: string | null, limit = 10) => {
      const shape = { named: name !== null };
      const { rows } = await db.executeQuery(projects(db, shape, { accountId, name, limit }));
      return rows.map((row) => row.name);
    };
    const [projectA] = await names(a.accountId, null);
    const [projectB] = await names(b.accountId, null);
    expect(projectA).toBeDefined();
    expect(projectB).toBeDefined();
    // The same shapes again, other values: the cached statements answer for them.
    expect(await names(a.accountId, projectA!)).toEqual([projectA]);
    expect(await names(a.accountId, projectB!)).toEqual(projectA === projectB ? [projectA] : []);
    expect(await names(b.accountId, null)).toEqual([projectB]);
    expect(await names(b.accountId, null, 0)).toEqual([]);
    const first = projects(db, { named: true }, { accountId: 'x', name: 'y', limit: 1 });
    const second = projects(db, { named: true }, { accountId: 'z', name: 'w', limit: 2 });
    expect(second.sql).toBe(first.sql);
    expect(second.query).toBe(first.query);
    expect(second.parameters).toEqual(['z', 'never a project name', 'w', 2]);
  });

  it('refuses a builder that writes a value into the SQL text', () => {
    const inlined = compiledShapes((kysely: Kysely<DB>, _shape: object, p: { name: string }) =>
      kysely
        .selectFrom('projects')
        .select('id')
        .where(sql<boolean>`name = ${sql.lit(p.name)}`),
    );
    expect(() => inlined(db, {}, { name: 'a' })).toThrow(/written into the SQL text/);
  });
});
