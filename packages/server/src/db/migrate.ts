import { type Migration, Migrator } from 'kysely';
import type { Database } from './database.js';
import { initialMigration } from './migrations/0001-initial.js';
import { sessionsMigration } from './migrations/0002-sessions.js';
import { instanceSettingsMigration } from './migrations/0003-instance-settings.js';
import { reportCountsMigration } from './migrations/0004-report-counts.js';

/**
 * Every migration, in order. Names sort; add new ones at the end as `000N-what` in
 * `migrations/`. Each takes the dialect because column types differ (timestamptz vs text).
 */
function migrations(db: Database): Record<string, Migration> {
  return {
    '0001-initial': initialMigration(db.dialect),
    '0002-sessions': sessionsMigration(db.dialect),
    '0003-instance-settings': instanceSettingsMigration(),
    '0004-report-counts': reportCountsMigration(),
  };
}

export async function migrateToLatest(db: Database): Promise<string[]> {
  const migrator = new Migrator({
    db: db.kysely,
    provider: { getMigrations: async () => migrations(db) },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
