import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * `similar_rejections`: pairs of issues a developer said are not the same problem; the pair is
 * stored once, the smaller id first, and is never suggested again (issues/similar/).
 */
export function similarRejectionsMigration(dialect: Dialect): Migration {
  const timestamp = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('similar_rejections')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
        .addColumn('issue_a', 'text', (c) => c.notNull())
        .addColumn('issue_b', 'text', (c) => c.notNull())
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .addPrimaryKeyConstraint('similar_rejections_pk', ['project_id', 'issue_a', 'issue_b'])
        .execute();
    },
  };
}
