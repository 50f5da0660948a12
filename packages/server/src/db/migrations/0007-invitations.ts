import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Sign-up that cannot be abused: the operator, and one-time invitations.
 *
 * - `accounts.is_operator` (1 = the instance's operator, who may invite). A partial unique
 *   index allows at most one row with 1, so two "first" sign-ups racing cannot both become
 *   the operator, on SQLite and PostgreSQL alike. An existing database's operator is its
 *   oldest account (ties broken by id, which is UUIDv7), the account that already owns the
 *   instance's own feedback project.
 * - `invitations`: only the SHA-256 of the token is stored, so a leaked table lets nobody in.
 *   `created_by` is null for invitations made with the CLI.
 */
export function invitationsMigration(dialect: Dialect): Migration {
  const timestamp = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('accounts')
        .addColumn('is_operator', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`
        update accounts set is_operator = 1
        where id = (select id from accounts order by created_at, id limit 1)
      `.execute(db);
      await db.schema
        .createIndex('accounts_one_operator')
        .on('accounts')
        .column('is_operator')
        .unique()
        .where(sql.ref('is_operator'), '=', 1)
        .execute();

      await db.schema
        .createTable('invitations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('email', 'text')
        .addColumn('created_by', 'text', (c) => c.references('accounts.id'))
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .addColumn('expires_at', timestamp, (c) => c.notNull())
        .addColumn('used_at', timestamp)
        .addColumn('used_by', 'text', (c) => c.references('accounts.id'))
        .addColumn('revoked_at', timestamp)
        .execute();
      await db.schema
        .createIndex('invitations_by_time')
        .on('invitations')
        .columns(['created_at', 'id'])
        .execute();
    },
  };
}
