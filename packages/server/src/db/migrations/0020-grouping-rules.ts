import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * `grouping_rules`: a project's rules, applied before the grouping engine, in the grouping
 * transaction (issues/rules/). `type` route: reports whose details match `pattern` (text or a
 * regular expression, `pattern_type`) on `tool_name` (null: any tool) go to `issue_id`.
 * `type` never_join: reports of `tool_a` and `tool_b` never share an issue. Rule writes take the
 * grouping lock and bump `grouping_progress.issues_version`, so a grouper's kept rules and pools
 * are read again after any change.
 */
export function groupingRulesMigration(dialect: Dialect): Migration {
  const timestamp = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('grouping_rules')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('pattern', 'text')
        .addColumn('pattern_type', 'text')
        .addColumn('tool_name', 'text')
        .addColumn('issue_id', 'text')
        .addColumn('tool_a', 'text')
        .addColumn('tool_b', 'text')
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .addColumn('updated_at', timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('grouping_rules_by_project')
        .on('grouping_rules')
        .columns(['project_id', 'created_at'])
        .execute();
    },
  };
}
