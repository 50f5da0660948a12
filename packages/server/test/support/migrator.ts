import { Migrator } from 'kysely';
import type { Database } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrate.js';

/**
 * A migrator over the server's own migrations, for the tests of one migration: they stop just
 * before it (`migrateTo`), write data in the old shape, then run the rest (`migrateToLatest`).
 */
export function migratorOf(database: Database): Migrator {
  return new Migrator({
    db: database.kysely,
    provider: { getMigrations: async () => migrations(database) },
  });
}
