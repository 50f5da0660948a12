import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomHex } from '@debrief/protocol';
import pg from 'pg';
import { inject } from 'vitest';
import { POSTGRES_TEMPLATE } from './database-templates.js';

export type TestDialect = 'sqlite' | 'postgres';

/**
 * The dialects every storage and route test runs on: SQLite always, PostgreSQL whenever the
 * global setup could start a cluster. Use with `describe.each(DIALECTS)`.
 */
export const DIALECTS: TestDialect[] = inject('postgresUrl') ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh database: a temporary SQLite file, or a new database in the test cluster. Empty (no
 * file at all on SQLite) unless `migrated`, then a copy of the run's migrated template: what a
 * server would make of an empty one, without paying for the migrations again.
 */
export async function createTestDatabase(
  dialect: TestDialect,
  { migrated = false }: { migrated?: boolean } = {},
): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'debrief-sqlite-'));
    if (migrated) copyFileSync(inject('sqliteTemplate'), join(dir, 'debrief.db'));
    return {
      url: join(dir, 'debrief.db'),
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const adminUrl = inject('postgresUrl');
  if (!adminUrl) throw new Error('PostgreSQL is not available in this test run');
  const name = `t_${randomHex(8)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await createDatabase(
    admin,
    `CREATE DATABASE ${name}${migrated ? ` TEMPLATE ${POSTGRES_TEMPLATE}` : ''}`,
  );
  await admin.end();
  return {
    url: adminUrl.replace(/\/[^/]*$/, `/${name}`),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      // pg's pool.end() resolves before its sockets have closed: dropping WITH (FORCE) at once
      // would terminate those backends and raise an unhandled error in the closing pool
      // (FATAL 57P01). Wait for them to leave; force only as a last resort.
      for (let attempt = 0; ; attempt++) {
        try {
          await client.query(
            `DROP DATABASE IF EXISTS ${name}${attempt >= 50 ? ' WITH (FORCE)' : ''}`,
          );
          break;
        } catch (error) {
          if ((error as { code?: string }).code !== '55006' || attempt >= 50) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      await client.end();
    },
  };
}

/**
 * PostgreSQL refuses to copy a template while a session is on it (55006), and the template's
 * own migration pool may take a moment to leave after the global setup closed it.
 */
async function createDatabase(admin: pg.Client, statement: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(statement);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== '55006' || attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
