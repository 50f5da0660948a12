import type { Kysely, Migration } from 'kysely';

/**
 * `grouping_progress.issues_version`: counts every transaction that writes issues (a grouping
 * batch, a triage change: both hold the progress row's lock). A grouping thread keeps the
 * candidate issues it read from one batch to the next (issues/pipeline/pool-cache.ts) and uses them
 * only while the version is the one its own last batch wrote: anyone else's write (triage,
 * another instance's grouper) makes it read them again. A counter rather than `updated_at`: two
 * writes in one millisecond must still differ.
 */
export function issuesVersionMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('grouping_progress')
        .addColumn('issues_version', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
