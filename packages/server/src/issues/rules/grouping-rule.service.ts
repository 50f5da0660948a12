import type {
  CreateGroupingRuleBody,
  GroupingRule,
  GroupingRuleList,
  UpdateGroupingRuleBody,
} from '@debrief/protocol';
import { RULES_PER_PROJECT_MAX } from '@debrief/protocol';
import type { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { GroupingRulesTable } from '../../db/schema.js';
import { iso, toWireTimestamp } from '../../db/wire-timestamp.js';
import { ApiError } from '../../errors/api-error.js';
import { newId } from '../../ids.js';
import { getOwnedProject } from '../../projects/project.service.js';
import { findIssue } from '../issue.repository.js';
import { underGroupingLock } from '../triage.service.js';
import {
  countRules,
  deleteRule,
  findRule,
  type GroupingRuleRow,
  insertRule,
  listRules,
  updateRule,
} from './grouping-rule.repository.js';
import { patternProblem } from './pattern-safety.js';
import { compilePattern } from './rule-matcher.js';

type CreateBody = z.output<typeof CreateGroupingRuleBody>;
type UpdateBody = z.output<typeof UpdateGroupingRuleBody>;

const RULE_ID = /^[0-9a-f]{32}$/;

/**
 * A project's grouping rules. Every write takes the grouping lock and bumps the issues' version
 * (triage.service.ts underGroupingLock), so a grouper that kept a project's rules reads them
 * again before its next batch, and no batch is half under the old rules.
 */

export async function listGroupingRules(
  ctx: AppContext,
  accountId: string,
  projectId: string,
): Promise<GroupingRuleList> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  return { rules: (await listRules(ctx.db, project.id)).map(toWireRule) };
}

export async function createGroupingRule(
  ctx: AppContext,
  accountId: string,
  projectId: string,
  body: CreateBody,
): Promise<GroupingRule> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  const now = new Date().toISOString();
  const row: GroupingRuleRow = {
    id: newId(Date.now()),
    project_id: project.id,
    type: body.type,
    name: body.name,
    pattern: body.type === 'route' ? body.pattern : null,
    pattern_type: body.type === 'route' ? body.pattern_type : null,
    tool_name: body.type === 'route' ? body.tool_name : null,
    issue_id: body.type === 'route' ? body.issue_id : null,
    tool_a: body.type === 'never_join' ? body.tools[0] : null,
    tool_b: body.type === 'never_join' ? body.tools[1] : null,
    created_at: now,
    updated_at: now,
  };
  checkPattern(row);
  checkTools(row);
  await underGroupingLock(ctx, async (trx) => {
    if ((await countRules(trx, project.id)) >= RULES_PER_PROJECT_MAX) {
      throw new ApiError(
        'validation_failed',
        `This project already has ${RULES_PER_PROJECT_MAX} grouping rules, the most it can have: delete or change one instead.`,
        {
          errors: [{ field: 'type', message: `at most ${RULES_PER_PROJECT_MAX} rules a project` }],
        },
      );
    }
    await checkIssue(trx, project.id, row.issue_id);
    await insertRule(trx, row);
  });
  return toWireRule(row);
}

export async function updateGroupingRule(
  ctx: AppContext,
  accountId: string,
  projectId: string,
  ruleId: string,
  body: UpdateBody,
): Promise<GroupingRule> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  if (!RULE_ID.test(ruleId)) throw ruleNotFound();
  return underGroupingLock(ctx, async (trx) => {
    const rule = await findRule(trx, project.id, ruleId);
    if (!rule) throw ruleNotFound();
    const foreign =
      rule.type === 'route'
        ? body.tools !== undefined && 'tools'
        : (['pattern', 'pattern_type', 'tool_name', 'issue_id'] as const).find(
            (field) => body[field] !== undefined,
          );
    if (foreign) {
      throw new ApiError(
        'validation_failed',
        `${foreign} is not a field of a ${rule.type} rule: a route rule has pattern, pattern_type, tool_name and issue_id; a never_join rule has tools.`,
        { errors: [{ field: foreign, message: `not a field of a ${rule.type} rule` }] },
      );
    }
    const next: GroupingRuleRow = {
      ...rule,
      name: body.name ?? rule.name,
      pattern: body.pattern ?? rule.pattern,
      pattern_type: body.pattern_type ?? rule.pattern_type,
      tool_name: body.tool_name === undefined ? rule.tool_name : body.tool_name,
      issue_id: body.issue_id ?? rule.issue_id,
      tool_a: body.tools?.[0] ?? rule.tool_a,
      tool_b: body.tools?.[1] ?? rule.tool_b,
      updated_at: new Date().toISOString(),
    };
    checkPattern(next);
    checkTools(next);
    if (body.issue_id !== undefined) await checkIssue(trx, project.id, next.issue_id);
    const { id: _id, project_id: _p, type: _t, created_at: _c, ...fields } = next;
    await updateRule(trx, rule.id, { ...fields, updated_at: iso(fields.updated_at) });
    return toWireRule(next);
  });
}

export async function deleteGroupingRule(
  ctx: AppContext,
  accountId: string,
  projectId: string,
  ruleId: string,
): Promise<{ ok: true; id: string }> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  if (!RULE_ID.test(ruleId)) throw ruleNotFound();
  await underGroupingLock(ctx, async (trx) => {
    if (!(await findRule(trx, project.id, ruleId))) throw ruleNotFound();
    await deleteRule(trx, ruleId);
  });
  return { ok: true, id: ruleId };
}

function ruleNotFound(): ApiError {
  return new ApiError('not_found', 'No grouping rule with this id in this project.');
}

/** A regular expression must compile and pass pattern-safety.ts. */
function checkPattern(rule: Pick<GroupingRulesTable, 'pattern' | 'pattern_type'>): void {
  if (rule.pattern_type !== 'regex' || rule.pattern === null) return;
  if (!compilePattern(rule.pattern)) {
    throw patternError(
      `pattern is not a valid regular expression (received "${rule.pattern}"). Use pattern_type "text" to match it as plain text.`,
      'is not a valid regular expression',
    );
  }
  const problem = patternProblem(rule.pattern);
  if (problem) {
    throw patternError(
      `pattern could take exponential time on some texts: write it without a repetition inside a repetition ("(a+)+") or a repeated group of alternatives ("(a|ab)*"); an unrepeated "(?:foo|bar)" is fine (received "${rule.pattern}").`,
      problem,
    );
  }
}

function patternError(detail: string, message: string): ApiError {
  return new ApiError('validation_failed', detail, { errors: [{ field: 'pattern', message }] });
}

function checkTools(rule: Pick<GroupingRulesTable, 'type' | 'tool_a' | 'tool_b'>): void {
  if (rule.type === 'never_join' && rule.tool_a === rule.tool_b) {
    throw new ApiError(
      'validation_failed',
      'tools must name two different tools: reports of one tool are grouped by the engine.',
      { errors: [{ field: 'tools', message: 'must be two different tools' }] },
    );
  }
}

async function checkIssue(
  trx: Parameters<typeof findIssue>[0],
  projectId: string,
  issueId: string | null,
): Promise<void> {
  if (issueId === null || (await findIssue(trx, projectId, issueId))) return;
  throw new ApiError(
    'validation_failed',
    `issue_id names no issue of this project (received "${issueId}"). Use an id from GET /v1/dashboard/${projectId}/issues?status=all.`,
    { errors: [{ field: 'issue_id', message: 'names no issue of this project' }] },
  );
}

export function toWireRule(row: GroupingRuleRow): GroupingRule {
  return {
    id: row.id,
    type: row.type as GroupingRule['type'],
    name: row.name,
    pattern: row.pattern,
    pattern_type: row.pattern_type as GroupingRule['pattern_type'],
    tool_name: row.tool_name,
    issue_id: row.issue_id,
    tools: row.tool_a !== null && row.tool_b !== null ? [row.tool_a, row.tool_b] : null,
    created_at: toWireTimestamp(row.created_at),
    updated_at: toWireTimestamp(row.updated_at),
  };
}
