import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Forwarding secrets (limits/forwarding/): a project owner gives one to a host app that forwards
 * reports for many agents, so the per-address limits count each agent's address instead of the
 * host's. Stored as a SHA-256 (the secret is 190 random bits: nothing to brute-force), shown once;
 * `prefix` is what the dashboard shows to tell them apart.
 */
export function forwardingSecretsMigration(dialect: Dialect): Migration {
  const timestamp = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('forwarding_secrets')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .addColumn('revoked_at', timestamp)
        .execute();
      await db.schema
        .createIndex('forwarding_secrets_by_project')
        .on('forwarding_secrets')
        .column('project_id')
        .execute();
    },
  };
}
