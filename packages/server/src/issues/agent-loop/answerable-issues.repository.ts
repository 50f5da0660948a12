import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

/** The SQL of the agent loop: the issues an agent may be told of, and where a report went. */

/**
 * A project's issues that carry an agent note or a closed status, most recently seen first, at
 * most `limit`. The predicate is the one of migration 0029's partial index, so a project with
 * none reads an empty range of it.
 */
export async function listAnswerableIssues(db: Kysely<DB>, projectId: string, limit: number) {
  return db
    .selectFrom('issues')
    .select(['id', 'status', 'agent_note', 'tool_name', 'kind', 'signature', 'report_count'])
    .where('project_id', '=', projectId)
    .where((eb) => eb.or([eb('agent_note', 'is not', null), eb('status', '<>', 'open')]))
    .orderBy('last_seen', 'desc')
    .limit(limit)
    .execute();
}

export type AnswerableIssueRow = Awaited<ReturnType<typeof listAnswerableIssues>>[number];

/**
 * The issues these reports were placed in, by report id; a report still waiting for grouping is
 * absent. A read of `report_issues`, so it waits for the report writer first
 * (db/read-routing.ts): on a SQLite file that moves the writer's inbox now, which groups them.
 */
export async function findPlacements(
  db: Kysely<DB>,
  reportIds: readonly string[],
): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('report_issues')
    .select(['report_id', 'issue_id'])
    .where('report_id', 'in', reportIds)
    .execute();
  const placed = new Map<string, string>();
  for (const row of rows) if (row.issue_id !== null) placed.set(row.report_id, row.issue_id);
  return placed;
}
