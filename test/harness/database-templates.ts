import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomHex } from '@debrief/protocol';
import pg from 'pg';
import { openMigratedDatabase } from '../../packages/server/src/db/migrate.js';

export interface DatabaseTemplates {
  /** A migrated SQLite file to copy. */
  sqlite: string;
  /** A migrated database of the test cluster to create others from, or null without one. */
  postgres: string | null;
  remove(): Promise<void>;
}

/**
 * One migrated, empty database per dialect, made once per test run from the tree as it is
 * then: a test server's fresh database is a copy of it (a file copy; CREATE DATABASE …
 * TEMPLATE) instead of an empty one that every migration runs on again, a good part of a test
 * server's start. Tests of migrations and of start-up on an empty database ask for an empty
 * one (databases.ts createTestDatabase).
 */
export async function makeDatabaseTemplates(
  postgresUrl: string | null,
): Promise<DatabaseTemplates> {
  const dir = mkdtempSync(join(tmpdir(), 'debrief-template-'));
  const sqlite = join(dir, 'debrief.db');
  await migrated(sqlite);
  let postgres: string | null = null;
  if (postgresUrl) {
    postgres = `t_template_${randomHex(8)}`;
    await admin(postgresUrl, `CREATE DATABASE ${postgres}`);
    await migrated(postgresUrl.replace(/\/[^/]*$/, `/${postgres}`));
  }
  return {
    sqlite,
    postgres,
    async remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Brings the database at `url` up to date and closes it (a SQLite file without its -wal). */
async function migrated(url: string): Promise<void> {
  await (await openMigratedDatabase(url)).database.close();
}

async function admin(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
