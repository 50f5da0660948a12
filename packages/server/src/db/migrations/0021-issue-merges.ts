import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * What a merge took away, so that unmerge can give it back exactly (issues/merges/):
 * - `issue_merges`: one row per merge still undoable: the merged issue as it was (its id, title,
 *   status, note, tool, kind, signature and dates), the issue it went into, and the grouping
 *   rules that followed it there;
 * - `issue_merge_reports`: the reports it brought, one row each. Unmerge takes back those of
 *   them still in the issue (a report moved elsewhere since stays where the developer put it),
 *   each with the reason it had in the merged issue.
 * Both rows go when the merge is undone.
 */
export function issueMergesMigration(dialect: Dialect): Migration {
  const timestamp = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('issue_merges')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
        .addColumn('into_issue_id', 'text', (c) => c.notNull())
        .addColumn('issue_id', 'text', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('regressed_at', timestamp)
        .addColumn('resolved_at', timestamp)
        .addColumn('note', 'text')
        .addColumn('tool_name', 'text')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('signature', 'text', (c) => c.notNull())
        // The grouping rules the merge sent to the issue it went into (a JSON array of ids).
        .addColumn('rule_ids', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .addColumn('merged_at', timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('issue_merges_by_into')
        .on('issue_merges')
        .columns(['project_id', 'into_issue_id', 'merged_at'])
        .execute();
      await db.schema
        .createTable('issue_merge_reports')
        .addColumn('merge_id', 'text', (c) => c.notNull())
        .addColumn('report_id', 'text', (c) => c.notNull())
        .addColumn('issue_reason', 'text')
        .addPrimaryKeyConstraint('issue_merge_reports_pk', ['merge_id', 'report_id'])
        .execute();
    },
  };
}
