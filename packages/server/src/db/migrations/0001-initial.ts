import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../database.js';

export function initialMigration(dialect: Dialect): Migration {
  const timestamp = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text')
        .addColumn('monthly_quota', 'integer')
        .addColumn('quota_unlimited', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('projects')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('projects_by_account')
        .on('projects')
        .columns(['account_id', 'created_at', 'id'])
        .execute();

      await db.schema
        .createTable('ingest_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
        .addColumn('key', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .addColumn('revoked_at', timestamp)
        .execute();
      await db.schema
        .createIndex('ingest_keys_by_project')
        .on('ingest_keys')
        .columns(['project_id'])
        .execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .addColumn('last_used_at', timestamp)
        .addColumn('revoked_at', timestamp)
        .execute();
      await db.schema
        .createIndex('api_keys_by_account')
        .on('api_keys')
        .columns(['account_id', 'created_at'])
        .execute();

      await db.schema
        .createTable('reports')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('tool_name', 'text')
        .addColumn('source', 'text')
        .addColumn('details', 'text', (c) => c.notNull())
        .addColumn('metadata', 'text')
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .execute();
      // One index per filter, each ordered by time so a filtered page is an index walk, and
      // each carrying `outcome` so the facet counts (stats) are answered from the index alone.
      await db.schema
        .createIndex('reports_by_project_time')
        .on('reports')
        .columns(['project_id', 'created_at', 'id', 'outcome'])
        .execute();
      await db.schema
        .createIndex('reports_by_project_outcome')
        .on('reports')
        .columns(['project_id', 'outcome', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('reports_by_project_tool')
        .on('reports')
        .columns(['project_id', 'tool_name', 'created_at', 'id', 'outcome'])
        .execute();
      await db.schema
        .createIndex('reports_by_project_source')
        .on('reports')
        .columns(['project_id', 'source', 'created_at', 'id', 'outcome'])
        .execute();

      await db.schema
        .createTable('usage_counters')
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('month', 'text', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_counters_pk', ['account_id', 'month'])
        .execute();
    },
  };
}
