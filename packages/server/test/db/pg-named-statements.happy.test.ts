import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  DIALECTS,
  type TestDatabase,
} from '../../../../test/harness/databases.js';
import {
  createTenant,
  type Tenant,
  type TestServer,
} from '../../../../test/harness/test-server.js';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { statementName } from '../../src/db/named-statements.js';
import { openPgPool } from '../../src/db/pg-pool.js';
import { findIngestTargets } from '../../src/keys/ingest-key-lookup.js';

/**
 * The main PostgreSQL pool prepares the ingest key lookup by name (db/named-statements.ts):
 * planned once per connection instead of on every batch (~11 µs of PostgreSQL a report under
 * the bench's ingest), and run unnamed once a pooler loses a named statement.
 */
describe.runIf(DIALECTS.includes('postgres'))(
  'statements prepared by name on the main pool',
  () => {
    let database: TestDatabase;
    const tenants: Tenant[] = [];

    beforeAll(async () => {
      database = await createTestDatabase('postgres');
      const setup = openDatabase(database.url);
      try {
        await migrateToLatest(setup);
        for (let i = 0; i < 2; i++)
          tenants.push(await createTenant({ db: setup.kysely } as TestServer['ctx']));
      } finally {
        await setup.close();
      }
    });
    afterAll(() => database.drop());

    /** One connection of a main pool, as the write path's transactions get one. */
    async function withClient(run: (client: pg.PoolClient) => Promise<void>) {
      const pool = openPgPool(database.url, { max: 1, named: true, onLost: () => {} });
      const client = await pool.connect();
      try {
        await run(client);
      } finally {
        client.release();
        await pool.end();
      }
    }

    const lookup = () => {
      const [statement] = findIngestTargets('postgres', [
        tenants[0]!.ingestKey,
        tenants[1]!.ingestKey,
        `wk_${'0'.repeat(32)}`,
      ]);
      return statement!;
    };

    it('looks every key of a batch up in one statement, and plans it once per connection', async () => {
      const statement = lookup();
      expect(statementName(statement.sql)).toBeDefined();
      await withClient(async (client) => {
        for (let i = 0; i < 8; i++) {
          const { rows } = await client.query(statement.sql, statement.parameters);
          expect(rows.map((row) => row.project_id).sort()).toEqual(
            tenants.map((t) => t.projectId).sort(),
          );
        }
        const { rows } = await client.query(
          'select name, generic_plans, custom_plans from pg_prepared_statements',
        );
        expect(rows).toHaveLength(1);
        expect(rows[0].name).toBe(statementName(statement.sql));
        // Five planned for their values, then PostgreSQL's generic plan, kept.
        expect(Number(rows[0].generic_plans)).toBeGreaterThan(0);
        expect(Number(rows[0].custom_plans) + Number(rows[0].generic_plans)).toBe(8);
      });
    });

    it('runs it unnamed from then on when a pooler loses a named statement', async () => {
      const statement = lookup();
      await withClient(async (client) => {
        await client.query(statement.sql, statement.parameters);
        // What a pooler handing the statement to another session amounts to: pg believes the
        // connection holds it, PostgreSQL does not.
        await client.query('deallocate all');
        await expect(client.query(statement.sql, statement.parameters)).rejects.toMatchObject({
          code: '26000',
        });
        const { rows } = await client.query(statement.sql, statement.parameters);
        expect(rows).toHaveLength(2);
        const prepared = await client.query('select name from pg_prepared_statements');
        expect(prepared.rows).toEqual([]);
      });
    });
  },
);
