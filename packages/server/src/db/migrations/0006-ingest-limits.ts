import type { Kysely, Migration } from 'kysely';

/**
 * Ingest limits (docs/operating.md, Limits and the quota; limits/). A project's own limits (null =
 * the instance's default, from configuration; `monthly_cap` null = no cap of its own), and the
 * counters that must be exact and survive restarts, kept in the transaction that stores each
 * report:
 * - `project_usage`: a capped project's reports per UTC month (counted only while it has a cap;
 *   setting a cap counts the month's reports first);
 * - `address_usage`: an account's reports per client address and UTC day, for the daily share
 *   of the monthly quota one address may take (rows older than yesterday are pruned);
 * - `throttled_requests`: refused submissions per project, UTC day, address and reason, for the
 *   dashboard (kept in memory and added here every few seconds).
 */
export function ingestLimitsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('projects').addColumn('key_rate', 'integer').execute();
      await db.schema.alterTable('projects').addColumn('key_burst', 'integer').execute();
      await db.schema.alterTable('projects').addColumn('address_rate', 'integer').execute();
      await db.schema.alterTable('projects').addColumn('address_burst', 'integer').execute();
      await db.schema.alterTable('projects').addColumn('address_daily_share', 'integer').execute();
      await db.schema.alterTable('projects').addColumn('monthly_cap', 'integer').execute();

      await db.schema
        .createTable('project_usage')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
        .addColumn('month', 'text', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('project_usage_pk', ['project_id', 'month'])
        .execute();

      await db.schema
        .createTable('address_usage')
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('address_usage_pk', ['account_id', 'address', 'day'])
        .execute();
      await db.schema
        .createIndex('address_usage_by_day')
        .on('address_usage')
        .columns(['day'])
        .execute();

      await db.schema
        .createTable('throttled_requests')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('throttled_requests_pk', [
          'project_id',
          'day',
          'address',
          'reason',
        ])
        .execute();
    },
  };
}
