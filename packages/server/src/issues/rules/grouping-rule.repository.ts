import type { Kysely, Updateable } from 'kysely';
import type { DB, GroupingRulesTable } from '../../db/schema.js';
import { iso } from '../../db/wire-timestamp.js';

/** The SQL of grouping rules: the API's writes and reads, and the grouper's load. */

export type GroupingRuleRow = Omit<GroupingRulesTable, 'created_at' | 'updated_at'> & {
  created_at: string | Date;
  updated_at: string | Date;
};

export async function listRules(db: Kysely<DB>, projectId: string): Promise<GroupingRuleRow[]> {
  return db
    .selectFrom('grouping_rules')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The rules of several projects at once, in each project's order: what a grouping batch loads. */
export async function listRulesOfProjects(
  db: Kysely<DB>,
  projectIds: readonly string[],
): Promise<GroupingRuleRow[]> {
  if (projectIds.length === 0) return [];
  return db
    .selectFrom('grouping_rules')
    .selectAll()
    .where('project_id', 'in', projectIds)
    .orderBy('project_id')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function findRule(db: Kysely<DB>, projectId: string, ruleId: string) {
  return db
    .selectFrom('grouping_rules')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', ruleId)
    .executeTakeFirst();
}

export async function countRules(db: Kysely<DB>, projectId: string): Promise<number> {
  const row = await db
    .selectFrom('grouping_rules')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function insertRule(db: Kysely<DB>, row: GroupingRuleRow): Promise<void> {
  await db
    .insertInto('grouping_rules')
    .values({ ...row, created_at: iso(row.created_at), updated_at: iso(row.updated_at) })
    .execute();
}

export async function updateRule(
  db: Kysely<DB>,
  ruleId: string,
  fields: Updateable<Omit<GroupingRulesTable, 'id' | 'project_id' | 'type' | 'created_at'>>,
): Promise<void> {
  await db.updateTable('grouping_rules').set(fields).where('id', '=', ruleId).execute();
}

export async function deleteRule(db: Kysely<DB>, ruleId: string): Promise<void> {
  await db.deleteFrom('grouping_rules').where('id', '=', ruleId).execute();
}

/**
 * Rules sending reports to `fromIssueId` send them to `intoIssueId` instead (a merge, or its
 * undoing: `ruleIds` then names the rules the merge moved). Returns the ids of the rules moved.
 */
export async function retargetRules(
  db: Kysely<DB>,
  projectId: string,
  fromIssueId: string,
  intoIssueId: string,
  ruleIds?: readonly string[],
): Promise<string[]> {
  if (ruleIds?.length === 0) return [];
  let query = db
    .updateTable('grouping_rules')
    .set({ issue_id: intoIssueId })
    .where('project_id', '=', projectId)
    .where('issue_id', '=', fromIssueId);
  if (ruleIds) query = query.where('id', 'in', ruleIds);
  const rows = await query.returning('id').execute();
  return rows.map((row) => row.id);
}
