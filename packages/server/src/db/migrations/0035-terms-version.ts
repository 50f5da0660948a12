import type { Kysely, Migration } from 'kysely';

/**
 * `terms_version` beside every stored grouping signature (`issues`, `issue_exemplars`,
 * `issue_merges`): the engine's TERMS_VERSION (issues/grouping/signature.ts) its terms were read
 * under. The rows before this migration say 1, the rules before TERMS_VERSION existed; the
 * grouper recomputes every row below the engine's (issues/pipeline/signature-refresh.ts), and
 * what the code writes from here on says which rules it used. Not indexed: the refresh walks
 * `issues` by primary key, and an index would cost every grouped batch's issue updates for a
 * question asked only after an upgrade.
 */
export function termsVersionMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      for (const table of ['issues', 'issue_exemplars', 'issue_merges']) {
        await db.schema
          .alterTable(table)
          .addColumn('terms_version', 'integer', (c) => c.notNull().defaultTo(1))
          .execute();
      }
    },
  };
}
