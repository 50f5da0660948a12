import type { IssueDetail, MovedReport, MoveReportBody, UpdateIssueBody } from '@debrief/protocol';
import type { Kysely } from 'kysely';
import type { AppContext } from '../context.js';
import type { DB } from '../db/schema.js';
import { ApiError } from '../errors/api-error.js';
import { newId } from '../ids.js';
import { getOwnedProject } from '../projects/project.service.js';
import {
  fingerprint,
  kindOf,
  mergeSignatures,
  parseSignature,
  removeFromSignature,
  serializeSignature,
  titleFor,
} from './grouping/index.js';
import {
  deleteIssue,
  findIssue,
  findReportOfProject,
  insertExemplar,
  moveIssueMembers,
  recountIssue,
  setIssueOutcome,
  setIssueSignature,
  setReportIssue,
  updateIssueFields,
} from './issue.repository.js';
import { type IssueActor, recordIssueActivity } from './issue-activity.repository.js';
import { announceIssueChanges } from './issue-announcements.js';
import { dominantOutcome } from './issue-counts.js';
import { getIssue, issueNotFound } from './issue-read.service.js';
import { toIssueSummary } from './issue-wire.js';
import { rememberMerge } from './merges/remember-merge.js';
import { bumpIssuesVersion, insertIssue, lockGroupingProgress } from './pipeline/index.js';

/** The reason shown on a report a developer moved. */
export const MOVED_REASON = 'moved by a developer';

const ISSUE_ID = /^[0-9a-f]{32}$/;

/**
 * Runs a triage change in a transaction that holds the grouper's lock (waiting for a batch
 * under way), so that a report is never assigned to an issue being merged away, nor counted
 * on the wrong side of a move.
 */
export async function underGroupingLock<T>(ctx: AppContext, work: (trx: Kysely<DB>) => Promise<T>) {
  const result = await ctx.db.transaction().execute(async (trx) => {
    await lockGroupingProgress(trx, ctx.database.dialect, { wait: true });
    await bumpIssuesVersion(trx);
    return work(trx);
  });
  // Issues were merged, moved or renamed: the list's possible-duplicate flags are worked out again.
  ctx.issueListExtras.forgetFlags();
  return result;
}

/**
 * Sets an issue's status, note, agent note and/or title. Resolving records when; reopening by
 * hand keeps `regressed_at` (it is history); a change of status is announced on the event
 * stream. A title given here stays: the grouper names an issue once, when it creates it. Each
 * change is an entry of the issue's history, in the same transaction.
 */
export async function updateIssue(
  ctx: AppContext,
  accountId: string,
  actor: IssueActor,
  projectId: string,
  issueId: string,
  body: {
    status?: UpdateIssueBody['status'];
    note?: string | null;
    agent_note?: string | null;
    title?: string;
  },
): Promise<IssueDetail> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  if (!ISSUE_ID.test(issueId)) throw issueNotFound();
  const changed = await underGroupingLock(ctx, async (trx) => {
    const row = await findIssue(trx, project.id, issueId);
    if (!row) throw issueNotFound();
    const now = new Date();
    const statusChanged = body.status !== undefined && body.status !== row.status;
    const note = body.note === undefined ? undefined : body.note === '' ? null : body.note;
    const noteChanged = note !== undefined && note !== row.note;
    const titleChanged = body.title !== undefined && body.title !== row.title;
    await updateIssueFields(trx, issueId, {
      status: body.status,
      resolvedAt: statusChanged
        ? body.status === 'resolved'
          ? now.toISOString()
          : null
        : undefined,
      note,
      agentNote: emptyIsNull(body.agent_note),
      title: body.title,
      now,
    });
    const entry = { projectId: project.id, issueId, actor, at: now };
    if (statusChanged)
      await recordIssueActivity(trx, {
        ...entry,
        action: 'status',
        from: row.status,
        to: body.status,
      });
    if (titleChanged)
      await recordIssueActivity(trx, {
        ...entry,
        action: 'renamed',
        from: row.title,
        to: body.title,
      });
    if (noteChanged) await recordIssueActivity(trx, { ...entry, action: 'note', to: note });
    return statusChanged;
  });
  // The next report of this project is answered with the issue as it is now (agent-loop/).
  ctx.answerableIssues.invalidate(project.id);
  if (changed)
    await announceIssueChanges(ctx, [{ projectId: project.id, issueId, change: 'status' }]);
  return getIssue(ctx, accountId, project.id, issueId);
}

/** A text field of the body: absent stays absent, "" clears it like null. */
function emptyIsNull(value: string | null | undefined): string | null | undefined {
  return value === '' ? null : value;
}

/**
 * Merges an issue into another of the same project: its reports and remembered moves join
 * `into`, whose counters are recounted, and the merged issue is deleted (its id then answers
 * 404). `into` keeps its own status, title and note. What unmerge needs is recorded first
 * (merges/remember-merge.ts), which also refuses a merge a never-join rule forbids.
 */
export async function mergeIssue(
  ctx: AppContext,
  accountId: string,
  actor: IssueActor,
  projectId: string,
  issueId: string,
  into: string,
): Promise<IssueDetail> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  if (!ISSUE_ID.test(issueId)) throw issueNotFound();
  if (into === issueId) {
    throw new ApiError(
      'validation_failed',
      'into must be another issue than the one merged: an issue cannot be merged into itself.',
      { errors: [{ field: 'into', message: 'must be another issue than the one merged' }] },
    );
  }
  const merged = await underGroupingLock(ctx, async (trx) => {
    const source = await findIssue(trx, project.id, issueId);
    if (!source) throw issueNotFound();
    const target = await findIssue(trx, project.id, into);
    if (!target) {
      throw new ApiError(
        'validation_failed',
        `into names no issue of this project (received "${into}"). Use an id from GET /v1/dashboard/${project.id}/issues?status=all.`,
        { errors: [{ field: 'into', message: 'names no issue of this project' }] },
      );
    }
    const now = new Date();
    await rememberMerge(trx, source, target, now);
    await moveIssueMembers(trx, project.id, source.id, target.id);
    // The merged issue's reports now describe `into` too: later reports like them join it.
    const signature = mergeSignatures(
      parseSignature(target.signature),
      parseSignature(source.signature),
    );
    // Stale if either was: the grouper's refresh then makes it afresh from its reports.
    const termsVersion = Math.min(target.terms_version, source.terms_version);
    await setIssueSignature(trx, target.id, serializeSignature(signature), termsVersion);
    await deleteIssue(trx, source.id);
    const counts = await recountIssue(trx, project.id, target.id, now);
    if (counts) await setIssueOutcome(trx, target.id, dominantOutcome(counts, 'failure'));
    await recordIssueActivity(trx, {
      projectId: project.id,
      issueId: target.id,
      action: 'merged',
      actor,
      from: source.title,
      relatedIssueId: source.id,
      at: now,
    });
    return toIssueSummary(source);
  });
  // Signatures changed: the submit answer's guesses are made against them anew.
  ctx.answerableIssues.invalidate(project.id);
  await announceIssueChanges(
    ctx,
    [{ projectId: project.id, issueId, change: 'merged', into }],
    new Map([[issueId, merged]]),
  );
  return getIssue(ctx, accountId, project.id, into);
}

/**
 * Moves a report into another issue, or out into a new one. The grouping remembers the move
 * (an exemplar with the report's signature, issue_exemplars): later reports like it follow it
 * there. The issue it left is recounted, and deleted if it has no report left.
 */
export async function moveReport(
  ctx: AppContext,
  accountId: string,
  actor: IssueActor,
  projectId: string,
  reportId: string,
  body: MoveReportBody,
): Promise<MovedReport> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  const notFound = new ApiError('not_found', 'No report with this id in this project.');
  if (!ISSUE_ID.test(reportId)) throw notFound;
  // The report may have been acknowledged a moment ago: make it readable first.
  await ctx.reportWriter.flush();
  const result = await underGroupingLock(ctx, async (trx) => {
    const report = await findReportOfProject(trx, project.id, reportId);
    if (!report) throw notFound;
    const now = new Date();
    // What the engine reads of it: not its metadata, stored as text (grouping/signature.ts).
    const input = { outcome: report.outcome, tool_name: report.tool_name, details: report.details };
    const signature = fingerprint(input);
    const kind = kindOf(report.outcome);
    let targetId: string;
    let created = false;
    if ('issue_id' in body) {
      const target = await findIssue(trx, project.id, body.issue_id);
      if (!target) {
        throw new ApiError(
          'validation_failed',
          `issue_id names no issue of this project (received "${body.issue_id}").`,
          { errors: [{ field: 'issue_id', message: 'names no issue of this project' }] },
        );
      }
      targetId = target.id;
      if (target.id !== report.issue_id) {
        const widened = mergeSignatures(parseSignature(target.signature), signature);
        await setIssueSignature(trx, target.id, serializeSignature(widened));
      }
    } else {
      targetId = newId(now.getTime());
      created = true;
      await insertIssue(trx, {
        id: targetId,
        projectId: project.id,
        title: titleFor([input]),
        toolName: report.tool_name,
        kind,
        outcome: report.outcome,
        signature: serializeSignature(signature),
        firstSeen: now.toISOString(),
        now: now.toISOString(),
      });
    }
    const fromId = report.issue_id;
    if (fromId === targetId) return { fromId, targetId, created, fromDeleted: false };
    await setReportIssue(trx, report, targetId, MOVED_REASON);
    await insertExemplar(trx, {
      id: newId(now.getTime()),
      projectId: project.id,
      issueId: targetId,
      toolName: report.tool_name,
      kind,
      signature: serializeSignature(signature),
      reportId: report.id,
      now,
    });
    const moved = { projectId: project.id, actor, reportId: report.id, at: now };
    await recordIssueActivity(trx, {
      ...moved,
      issueId: targetId,
      action: 'report_moved_in',
      relatedIssueId: fromId,
    });
    if (fromId)
      await recordIssueActivity(trx, {
        ...moved,
        issueId: fromId,
        action: 'report_moved_out',
        relatedIssueId: targetId,
      });
    const targetCounts = await recountIssue(trx, project.id, targetId, now);
    if (targetCounts)
      await setIssueOutcome(trx, targetId, dominantOutcome(targetCounts, 'failure'));
    let fromDeleted = false;
    if (fromId) {
      // The report no longer describes the issue it left.
      const from = await findIssue(trx, project.id, fromId);
      const narrowed = from ? removeFromSignature(parseSignature(from.signature), signature) : null;
      if (narrowed) await setIssueSignature(trx, fromId, serializeSignature(narrowed));
      const fromCounts = await recountIssue(trx, project.id, fromId, now);
      if (fromCounts) await setIssueOutcome(trx, fromId, dominantOutcome(fromCounts, 'failure'));
      else {
        await deleteIssue(trx, fromId);
        fromDeleted = true;
      }
    }
    return { fromId, targetId, created, fromDeleted };
  });
  ctx.answerableIssues.invalidate(project.id);
  if (result.created)
    await announceIssueChanges(ctx, [
      { projectId: project.id, issueId: result.targetId, change: 'created' },
    ]);
  return {
    ok: true,
    report_id: reportId,
    issue_id: result.targetId,
    from_issue_id: result.fromId,
  };
}
