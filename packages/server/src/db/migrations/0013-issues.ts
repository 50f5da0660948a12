import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Issues, the grouper's state, and API key scopes.
 * - `issues`: one row per problem behind a project's reports, with the counters the list reads
 *   (kept by the grouper in the transaction that assigns each report) and the grouping
 *   engine's signature (JSON text). `kind` (problem | success | request) with `tool_name`
 *   bounds the candidates a report is compared with (issues/grouping/index.ts).
 * - `reports.issue_id` (moved to `report_issues` by 0017): null until grouped; `issue_reason`:
 *   the engine's why ("same tool, 0.82 similar to …", or a developer's move). Two indexes: the
 *   `issue_id` filter of the reports list walks (project_id, issue_id, created_at, id); the
 *   grouper finds the reports still to group through a partial index holding only those,
 *   which stays a few entries small whatever the table's size, and sees a report committed
 *   late (another instance, another connection) as well as one committed in order.
 * - `grouping_progress`: one row ('default'): the position of the last grouped report and how
 *   many were grouped. On PostgreSQL the grouper locks it (`for update`), so one instance
 *   groups at a time.
 * - `issue_exemplars`: a report moved by a developer, remembered with its signature, so that a
 *   report like it follows it to the same issue.
 * - `api_keys.scopes`: space-separated, `read` by default (`read triage` may triage).
 * The SQLite inbox (0005) needs no `issue_id`: a report is grouped once it is in `reports`.
 */
export function issuesMigration(dialect: Dialect): Migration {
  const timestamp = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('issues')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
        .addColumn('regressed_at', timestamp)
        .addColumn('resolved_at', timestamp)
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('tool_name', 'text')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('signature', 'text', (c) => c.notNull())
        // The outcome most of its reports have: kept with the counts, so the list filters on it.
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('report_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('count_success', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('count_failure', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('count_confusing', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('count_gave_up', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('count_request', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('sample_details', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('first_seen', timestamp, (c) => c.notNull())
        .addColumn('last_seen', timestamp, (c) => c.notNull())
        .addColumn('note', 'text')
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .addColumn('updated_at', timestamp, (c) => c.notNull())
        .execute();
      // The list: a project's issues of one status, newest activity first.
      await db.schema
        .createIndex('issues_by_project_status_seen')
        .on('issues')
        .columns(['project_id', 'status', 'last_seen', 'id'])
        .execute();
      // The grouper's bounded candidates: same project, tool and kind, most recent first.
      await db.schema
        .createIndex('issues_by_project_tool_kind')
        .on('issues')
        .columns(['project_id', 'tool_name', 'kind', 'last_seen'])
        .execute();

      await db.schema.alterTable('reports').addColumn('issue_id', 'text').execute();
      await db.schema.alterTable('reports').addColumn('issue_reason', 'text').execute();
      await db.schema
        .createIndex('reports_by_project_issue')
        .on('reports')
        .columns(['project_id', 'issue_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('reports_ungrouped')
        .on('reports')
        .columns(['created_at', 'id'])
        .where(sql.ref('issue_id'), 'is', null)
        .execute();

      await db.schema
        .createTable('grouping_progress')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('last_created_at', timestamp)
        .addColumn('last_report_id', 'text')
        .addColumn('grouped_count', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('updated_at', timestamp)
        .execute();
      await sql`insert into grouping_progress (id, grouped_count) values ('default', 0)`.execute(
        db,
      );

      await db.schema
        .createTable('issue_exemplars')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
        .addColumn('issue_id', 'text', (c) => c.notNull())
        .addColumn('tool_name', 'text')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('signature', 'text', (c) => c.notNull())
        .addColumn('report_id', 'text', (c) => c.notNull())
        .addColumn('created_at', timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('issue_exemplars_by_project_tool_kind')
        .on('issue_exemplars')
        .columns(['project_id', 'tool_name', 'kind', 'created_at'])
        .execute();
      await db.schema
        .createIndex('issue_exemplars_by_issue')
        .on('issue_exemplars')
        .columns(['issue_id'])
        .execute();

      await db.schema
        .alterTable('api_keys')
        .addColumn('scopes', 'text', (c) => c.notNull().defaultTo('read'))
        .execute();
    },
  };
}
