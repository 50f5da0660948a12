import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { ApiError } from '../../errors/api-error.js';
import { newId } from '../../ids.js';
import { listRulesOfProjects, retargetRules } from '../rules/grouping-rule.repository.js';
import { compileRules } from '../rules/rule-matcher.js';
import { type MergedIssueRow, recordMerge } from './merge-record.repository.js';

/**
 * What a merge does besides moving the reports (triage.service.ts mergeIssue calls it first, in
 * its transaction): refuses a merge a never-join rule forbids, records what unmerge needs, and
 * sends the merged issue's rules to the issue it goes into.
 */
export async function rememberMerge(
  trx: Kysely<DB>,
  source: MergedIssueRow,
  target: { id: string; tool_name: string | null },
  now: Date,
): Promise<void> {
  const rules = compileRules(await listRulesOfProjects(trx, [source.project_id]));
  const apart = rules.apart(source.tool_name, target.tool_name);
  if (apart) {
    throw new ApiError(
      'validation_failed',
      `The grouping rule "${apart.name}" keeps reports of ${source.tool_name} and ${target.tool_name} apart: delete or change it to merge these issues.`,
      { errors: [{ field: 'into', message: `kept apart by the rule "${apart.name}"` }] },
    );
  }
  const moved = await retargetRules(trx, source.project_id, source.id, target.id);
  await recordMerge(trx, newId(now.getTime()), source, target.id, moved, now);
}
