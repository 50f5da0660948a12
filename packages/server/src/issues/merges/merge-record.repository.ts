import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { iso } from '../../db/wire-timestamp.js';
import { addIssueDays, IssueDayTally } from '../issue-days.repository.js';

/**
 * The SQL of merge records: what a merge took away (the merged issue's row and its reports, each
 * with its reason), so that unmerge gives it back exactly.
 */

export interface MergedIssueRow {
  id: string;
  project_id: string;
  status: string;
  regressed_at: string | Date | null;
  resolved_at: string | Date | null;
  title: string;
  tool_name: string | null;
  kind: string;
  signature: string;
  terms_version: number;
  note: string | null;
  created_at: string | Date;
}

/**
 * Records the merge of `source` into `intoId`, before its reports move: the issue as it is, and
 * each of its reports with its reason, in two statements.
 */
export async function recordMerge(
  trx: Kysely<DB>,
  mergeId: string,
  source: MergedIssueRow,
  intoId: string,
  ruleIds: readonly string[],
  now: Date,
): Promise<void> {
  await trx
    .insertInto('issue_merges')
    .values({
      id: mergeId,
      project_id: source.project_id,
      into_issue_id: intoId,
      issue_id: source.id,
      title: source.title,
      status: source.status,
      regressed_at: source.regressed_at === null ? null : iso(source.regressed_at),
      resolved_at: source.resolved_at === null ? null : iso(source.resolved_at),
      note: source.note,
      tool_name: source.tool_name,
      kind: source.kind,
      signature: source.signature,
      terms_version: source.terms_version,
      rule_ids: JSON.stringify(ruleIds),
      created_at: iso(source.created_at),
      merged_at: now.toISOString(),
    })
    .execute();
  await trx
    .insertInto('issue_merge_reports')
    .columns(['merge_id', 'report_id', 'issue_reason'])
    .expression((eb) =>
      eb
        .selectFrom('report_issues')
        .select((s) => [s.val(mergeId).as('merge_id'), 'report_id', 'issue_reason'])
        .where('project_id', '=', source.project_id)
        .where('issue_id', '=', source.id),
    )
    .execute();
}

/** The merges into an issue, newest first, each with how many of its reports are still there. */
export async function listMergesInto(trx: Kysely<DB>, projectId: string, intoId: string) {
  const rows = await trx
    .selectFrom('issue_merges')
    .leftJoin('issue_merge_reports', 'issue_merge_reports.merge_id', 'issue_merges.id')
    .leftJoin('report_issues', (join) =>
      join
        .onRef('report_issues.report_id', '=', 'issue_merge_reports.report_id')
        .on('report_issues.issue_id', '=', intoId),
    )
    .select((eb) => [
      'issue_merges.id',
      'issue_merges.issue_id',
      'issue_merges.title',
      'issue_merges.tool_name',
      'issue_merges.merged_at',
      eb.fn.count<number | string>('report_issues.report_id').as('still_there'),
    ])
    .where('issue_merges.project_id', '=', projectId)
    .where('issue_merges.into_issue_id', '=', intoId)
    .groupBy([
      'issue_merges.id',
      'issue_merges.issue_id',
      'issue_merges.title',
      'issue_merges.tool_name',
      'issue_merges.merged_at',
    ])
    .orderBy('issue_merges.merged_at', 'desc')
    .orderBy('issue_merges.id', 'desc')
    .execute();
  return rows.map((row) => ({ ...row, still_there: Number(row.still_there) }));
}

export async function findMergesInto(trx: Kysely<DB>, projectId: string, intoId: string) {
  return trx
    .selectFrom('issue_merges')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('into_issue_id', '=', intoId)
    .orderBy('merged_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export type MergeRecord = Awaited<ReturnType<typeof findMergesInto>>[number];

/** Gives a merged issue its row back, as it was when merged; its counters are recounted after. */
export async function restoreIssue(trx: Kysely<DB>, merge: MergeRecord, now: Date): Promise<void> {
  await trx
    .insertInto('issues')
    .values({
      id: merge.issue_id,
      project_id: merge.project_id,
      status: merge.status,
      regressed_at: merge.regressed_at === null ? null : iso(merge.regressed_at),
      resolved_at: merge.resolved_at === null ? null : iso(merge.resolved_at),
      title: merge.title,
      tool_name: merge.tool_name,
      kind: merge.kind,
      signature: merge.signature,
      terms_version: merge.terms_version,
      outcome: 'failure',
      report_count: 0,
      count_success: 0,
      count_failure: 0,
      count_confusing: 0,
      count_gave_up: 0,
      count_request: 0,
      sample_details: '',
      first_seen: now.toISOString(),
      last_seen: now.toISOString(),
      note: merge.note,
      created_at: iso(merge.created_at),
      updated_at: now.toISOString(),
    })
    .execute();
}

/**
 * The merge's reports still in `intoId` go back to the merged issue with the reasons they had,
 * their days counted out of `intoId` into it (issue-days.repository.ts), and the moves
 * remembered for them follow.
 */
export async function takeBackReports(
  trx: Kysely<DB>,
  merge: MergeRecord,
  intoId: string,
): Promise<void> {
  const reasons = await trx
    .selectFrom('issue_merge_reports')
    .innerJoin('report_issues', 'report_issues.report_id', 'issue_merge_reports.report_id')
    .select([
      'issue_merge_reports.report_id',
      'issue_merge_reports.issue_reason',
      'report_issues.project_id',
      'report_issues.created_at',
    ])
    .where('issue_merge_reports.merge_id', '=', merge.id)
    .where('report_issues.issue_id', '=', intoId)
    .execute();
  // One statement per distinct reason: a merged issue's reports share a handful of them.
  const byReason = new Map<string | null, string[]>();
  const days = new IssueDayTally();
  for (const row of reasons) {
    const ids = byReason.get(row.issue_reason) ?? [];
    ids.push(row.report_id);
    byReason.set(row.issue_reason, ids);
    days.add(merge.issue_id, row.project_id, row.created_at);
    days.add(intoId, row.project_id, row.created_at, -1);
  }
  for (const [reason, ids] of byReason) {
    for (let at = 0; at < ids.length; at += 500) {
      await trx
        .updateTable('report_issues')
        .set({ issue_id: merge.issue_id, issue_reason: reason })
        .where('issue_id', '=', intoId)
        .where('report_id', 'in', ids.slice(at, at + 500))
        .execute();
    }
  }
  await addIssueDays(trx, days);
  await trx
    .updateTable('issue_exemplars')
    .set({ issue_id: merge.issue_id })
    .where('issue_id', '=', intoId)
    .where('report_id', 'in', (eb) =>
      eb.selectFrom('issue_merge_reports').select('report_id').where('merge_id', '=', merge.id),
    )
    .execute();
}

export async function deleteMergeRecord(trx: Kysely<DB>, mergeId: string): Promise<void> {
  await trx.deleteFrom('issue_merge_reports').where('merge_id', '=', mergeId).execute();
  await trx.deleteFrom('issue_merges').where('id', '=', mergeId).execute();
}
