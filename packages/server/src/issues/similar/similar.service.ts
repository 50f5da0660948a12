import type { RejectedSimilar, SimilarIssues } from '@debrief/protocol';
import type { AppContext } from '../../context.js';
import { ApiError } from '../../errors/api-error.js';
import { getOwnedProject } from '../../projects/project.service.js';
import { findIssue } from '../issue.repository.js';
import { issueNotFound } from '../issue-read.service.js';
import { toIssueSummary } from '../issue-wire.js';
import { likeness, SUGGESTED_KINDS, signatureOf, suggestFrom } from './likeness.js';
import { insertRejection, listRejectedPairs, listSimilarCandidates } from './similar.repository.js';

const ISSUE_ID = /^[0-9a-f]{32}$/;
/** Suggestions answered at most. */
const SIMILAR_SHOWN = 5;
/** Issues of the same tool and kind compared, most recently seen first: the engine's own bound. */
const SIMILAR_CANDIDATES = 200;

/**
 * The issues most likely to be the same problem as this one: those of the same tool and kind
 * whose reports the grouping engine finds alike (likeness.ts), most alike first, without the
 * pairs a developer rejected. Successes and the "unsorted" issues are never suggested: a tool's
 * successes are one issue already.
 */
export async function getSimilarIssues(
  ctx: AppContext,
  accountId: string,
  projectId: string,
  issueId: string,
): Promise<SimilarIssues> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  if (!ISSUE_ID.test(issueId)) throw issueNotFound();
  const issue = await findIssue(ctx.db, project.id, issueId);
  if (!issue) throw issueNotFound();
  if (!SUGGESTED_KINDS.has(issue.kind)) return { issue_id: issueId, similar: [] };
  const [candidates, rejected] = await Promise.all([
    listSimilarCandidates(ctx.db, project.id, issue.tool_name, issue.kind, SIMILAR_CANDIDATES),
    listRejectedPairs(ctx.db, project.id, [issueId]),
  ]);
  const skip = new Set(rejected.flatMap((pair) => [pair.issue_a, pair.issue_b]));
  const from = suggestFrom(issue.kind);
  const found: SimilarIssues['similar'] = [];
  const mine = { signature: signatureOf(issue.signature), members: Number(issue.report_count) };
  for (const candidate of candidates) {
    if (candidate.id === issueId || skip.has(candidate.id)) continue;
    const alike = likeness(mine, {
      signature: signatureOf(candidate.signature),
      members: Number(candidate.report_count),
    });
    if (!alike || alike.score < from) continue;
    found.push({ issue: toIssueSummary(candidate), score: alike.score, reason: alike.reason });
  }
  found.sort((a, b) => b.score - a.score || (a.issue.id < b.issue.id ? -1 : 1));
  return { issue_id: issueId, similar: found.slice(0, SIMILAR_SHOWN) };
}

/**
 * "Not the same problem": the pair is remembered and never suggested again, nor flagged as a
 * possible duplicate in the list.
 */
export async function rejectSimilar(
  ctx: AppContext,
  accountId: string,
  projectId: string,
  issueId: string,
  otherId: string,
): Promise<RejectedSimilar> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  if (!ISSUE_ID.test(issueId) || !(await findIssue(ctx.db, project.id, issueId)))
    throw issueNotFound();
  if (otherId === issueId || !(await findIssue(ctx.db, project.id, otherId))) {
    throw new ApiError(
      'validation_failed',
      `issue_id must name another issue of this project (received "${otherId}"): take one from GET /v1/dashboard/${project.id}/issues/${issueId}/similar.`,
      { errors: [{ field: 'issue_id', message: 'names no other issue of this project' }] },
    );
  }
  await insertRejection(ctx.db, project.id, issueId, otherId, new Date());
  ctx.issueListExtras.forgetFlags();
  return { ok: true, issue_id: issueId, rejected_issue_id: otherId };
}
