import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../database.js';

/** Dashboard sessions. The cookie holds a random id; only its SHA-256 is stored. */
export function sessionsMigration(dialect: Dialect): Migration {
  const timestamp = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .addColumn('expires_at', timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('sessions_by_expiry')
        .on('sessions')
        .columns(['expires_at'])
        .execute();
      await db.schema
        .createIndex('sessions_by_account')
        .on('sessions')
        .columns(['account_id'])
        .execute();
    },
  };
}
