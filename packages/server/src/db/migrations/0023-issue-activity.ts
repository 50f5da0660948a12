import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * `issue_activity`: what happened to an issue and who did it (issues/issue-activity.ts), a row
 * per triage action, written in the action's transaction. No foreign key to `issues`: an issue
 * merged away is deleted while the history of the issue it joined keeps naming it. Read newest
 * first per issue, through (issue_id, created_at, id).
 */
export function issueActivityMigration(dialect: Dialect): Migration {
  const timestamp = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('issue_activity')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
        .addColumn('issue_id', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('actor_type', 'text', (c) => c.notNull())
        .addColumn('actor_name', 'text')
        .addColumn('from_value', 'text')
        .addColumn('to_value', 'text')
        .addColumn('related_issue_id', 'text')
        .addColumn('report_id', 'text')
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('issue_activity_by_issue')
        .on('issue_activity')
        .columns(['issue_id', 'created_at', 'id'])
        .execute();
    },
  };
}
