import type { MergedIssueList, UnmergedIssue, UnmergeIssueBody } from '@debrief/protocol';
import type { z } from 'zod';
import type { AppContext } from '../../context.js';
import { toWireTimestamp } from '../../db/wire-timestamp.js';
import { ApiError } from '../../errors/api-error.js';
import { getOwnedProject } from '../../projects/project.service.js';
import {
  parseSignature,
  removeFromSignature,
  type Signature,
  serializeSignature,
} from '../grouping/index.js';
import {
  deleteIssue,
  findIssue,
  listIssueRowsByIds,
  recountIssue,
  setIssueOutcome,
  setIssueSignature,
} from '../issue.repository.js';
import { type IssueActor, recordIssueActivity } from '../issue-activity.repository.js';
import { announceIssueChanges } from '../issue-announcements.js';
import { dominantOutcome } from '../issue-counts.js';
import { issueNotFound } from '../issue-read.service.js';
import { toIssueSummary } from '../issue-wire.js';
import { retargetRules } from '../rules/grouping-rule.repository.js';
import { underGroupingLock } from '../triage.service.js';
import {
  deleteMergeRecord,
  findMergesInto,
  listMergesInto,
  restoreIssue,
  takeBackReports,
} from './merge-record.repository.js';

const ISSUE_ID = /^[0-9a-f]{32}$/;

/** The issues merged into this one that unmerge can bring back, newest first. */
export async function listMergedIssues(
  ctx: AppContext,
  accountId: string,
  projectId: string,
  issueId: string,
): Promise<MergedIssueList> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  if (!ISSUE_ID.test(issueId) || !(await findIssue(ctx.db, project.id, issueId)))
    throw issueNotFound();
  const rows = await listMergesInto(ctx.db, project.id, issueId);
  return {
    issue_id: issueId,
    merged: rows.map((row) => ({
      id: row.issue_id,
      title: row.title,
      tool_name: row.tool_name,
      report_count: row.still_there,
      merged_at: toWireTimestamp(row.merged_at),
    })),
  };
}

/**
 * Splits issues merged into this one back out (all of them, or those named): each comes back
 * under its own id with its title, status and note, and takes back the reports it brought that
 * are still here, with the reasons they had; this issue's signature loses what the merge added.
 * A merged issue none of whose reports are still here is not brought back.
 */
export async function unmergeIssue(
  ctx: AppContext,
  accountId: string,
  projectId: string,
  issueId: string,
  body: z.output<typeof UnmergeIssueBody>,
  actor: IssueActor,
): Promise<UnmergedIssue> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  if (!ISSUE_ID.test(issueId)) throw issueNotFound();
  const restored = await underGroupingLock(ctx, async (trx) => {
    const target = await findIssue(trx, project.id, issueId);
    if (!target) throw issueNotFound();
    const merges = await findMergesInto(trx, project.id, issueId);
    const named = body.issue_ids;
    const unknown = named?.find((id) => !merges.some((m) => m.issue_id === id));
    if (unknown || merges.length === 0) {
      throw new ApiError(
        'validation_failed',
        unknown
          ? `issue_ids names an issue that was not merged into this one (received "${unknown}"). GET /v1/dashboard/${project.id}/issues/${issueId}/merges lists those that were.`
          : 'No issue was merged into this one: there is nothing to split off.',
        { errors: [{ field: 'issue_ids', message: 'names no issue merged into this one' }] },
      );
    }
    const chosen = named ? merges.filter((m) => named.includes(m.issue_id)) : merges;
    const now = new Date();
    let signature: Signature | null = parseSignature(target.signature);
    // What is taken away was read under the oldest rules of the two: stale if either was.
    let termsVersion = target.terms_version;
    const back: string[] = [];
    for (const merge of chosen) {
      await restoreIssue(trx, merge, now);
      await takeBackReports(trx, merge, target.id);
      const counts = await recountIssue(trx, project.id, merge.issue_id, now);
      if (counts) {
        await setIssueOutcome(trx, merge.issue_id, dominantOutcome(counts, 'failure'));
        // The rules the merge sent here go back with their issue.
        const ruleIds = JSON.parse(merge.rule_ids) as string[];
        await retargetRules(trx, project.id, target.id, merge.issue_id, ruleIds);
        back.push(merge.issue_id);
        await recordIssueActivity(trx, {
          projectId: project.id,
          issueId: target.id,
          action: 'unmerged',
          actor,
          from: merge.title,
          relatedIssueId: merge.issue_id,
          at: now,
        });
      } else await deleteIssue(trx, merge.issue_id);
      // An "unsorted" issue stores no signature (null): nothing to take away then.
      const mergedSignature = parseSignature(merge.signature);
      if (signature && mergedSignature) {
        signature = removeFromSignature(signature, mergedSignature) ?? signature;
        termsVersion = Math.min(termsVersion, merge.terms_version);
      }
      await deleteMergeRecord(trx, merge.id);
    }
    if (signature)
      await setIssueSignature(trx, target.id, serializeSignature(signature), termsVersion);
    const counts = await recountIssue(trx, project.id, target.id, now);
    if (counts) await setIssueOutcome(trx, target.id, dominantOutcome(counts, 'failure'));
    return back;
  });
  // The issues split back out may carry notes or statuses the agents' answers must see.
  ctx.answerableIssues.invalidate(project.id);
  await announceIssueChanges(
    ctx,
    [issueId, ...restored].map((id) => ({ projectId: project.id, issueId: id, change: 'status' })),
  );
  const rows = await listIssueRowsByIds(ctx.db, restored);
  return {
    ok: true,
    issue_id: issueId,
    restored: restored.flatMap((id) => {
      const row = rows.find((r) => r.id === id);
      return row ? [toIssueSummary(row)] : [];
    }),
  };
}
