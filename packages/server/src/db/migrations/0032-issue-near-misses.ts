import type { Kysely, Migration } from 'kysely';

/**
 * How many reports came close to an issue without joining it and opened issues of their own:
 * the grouping engine's adaptive bar (grouping/assign.ts) lowers an issue's bar once it has
 * one. Counted by the grouper (pipeline/group-reports.ts); 0 for every issue before.
 */
export function issueNearMissesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('issues')
        .addColumn('near_misses', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
