import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomHex } from '@debrief/protocol';
import pg from 'pg';
import { inject } from 'vitest';

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
 * A fresh database: a temporary SQLite path (no file yet), or a new empty database in the test
 * cluster. `migrated`: a copy of the run's migrated template instead (database-templates.ts),
 * for tests that only need a database to work on, not its creation or its migrations.
 */
export async function createTestDatabase(
  dialect: TestDialect,
  { migrated = false }: { migrated?: boolean } = {},
): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'debrief-sqlite-'));
    const url = join(dir, 'debrief.db');
    const template = migrated ? inject('sqliteTemplate') : undefined;
    if (template) copyFileSync(template, url);
    return { url, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const adminUrl = inject('postgresUrl');
  if (!adminUrl) throw new Error('PostgreSQL is not available in this test run');
  const name = `t_${randomHex(8)}`;
  const template = migrated ? inject('postgresTemplate') : null;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  // A template still held by a connection that is closing (pg's end() resolves before its
  // socket is gone) refuses to be copied for a moment (55006): try again.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== '55006' || attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
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
