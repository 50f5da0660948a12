import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { listRulesOfProjects } from './grouping-rule.repository.js';
import { compileRules, type ProjectRules } from './rule-matcher.js';

/**
 * The rules of every project of a batch, read in the grouping transaction: those `kept` (a
 * grouper's cache, valid while no one else wrote since its last batch: pool-cache.ts), and one
 * query for the others, which are added to `kept`. A project without rules is kept as such, so
 * the common case costs a map lookup a report.
 */
export async function loadRules(
  trx: Kysely<DB>,
  projectIds: Iterable<string>,
  kept: Map<string, ProjectRules>,
): Promise<Map<string, ProjectRules>> {
  const missing = [...new Set(projectIds)].filter((id) => !kept.has(id));
  if (missing.length === 0) return kept;
  const rows = await listRulesOfProjects(trx, missing);
  for (const id of missing) kept.set(id, compileRules(rows.filter((r) => r.project_id === id)));
  return kept;
}
