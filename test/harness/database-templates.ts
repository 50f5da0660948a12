import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openMigratedDatabase } from '../../packages/server/src/db/migrate.js';

/** The PostgreSQL database every migrated test database is copied from. */
export const POSTGRES_TEMPLATE = 'debrief_migrated_template';

/**
 * Migrated databases to copy, made once per run: migrating a fresh database costs ~0.7 s on
 * SQLite and ~1 s on PostgreSQL, and the suite makes hundreds. The SQLite one is a file (its
 * WAL checkpointed into it on close), the PostgreSQL one a database of the test cluster that
 * `CREATE DATABASE … TEMPLATE` copies.
 */
export async function makeDatabaseTemplates(postgresUrl: string | null) {
  const dir = mkdtempSync(join(tmpdir(), 'debrief-template-'));
  const sqlite = join(dir, 'debrief.db');
  await (await openMigratedDatabase(sqlite)).database.close();
  if (existsSync(`${sqlite}-wal`)) throw new Error('the SQLite template kept its -wal on close');
  if (postgresUrl) {
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${POSTGRES_TEMPLATE}`);
    await admin.end();
    const url = postgresUrl.replace(/\/[^/]*$/, `/${POSTGRES_TEMPLATE}`);
    await (await openMigratedDatabase(url)).database.close();
  }
  return { sqlite, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
