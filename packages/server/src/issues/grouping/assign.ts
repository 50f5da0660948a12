import { compare, type Signature } from './signature.js';
import {
  format,
  round,
  sharedTerms,
  similarity,
  type WeightedReport,
  weighted,
} from './similarity.js';

/**
 * The caller hands in at most this many candidate issues — the same project, tool and kind,
 * most recently seen first (open and resolved; ignored ones too, so an ignored problem stays
 * one issue) — and assign reads no more than that, so a report costs at most 200 comparisons of
 * a few dozen terms however many issues a project has.
 */
export const CANDIDATE_LIMIT = 200;
/** Pinned exemplars (reports a developer moved) read per report, most recent first. */
export const PINNED_LIMIT = 100;

/**
 * Similarity from which a report joins a candidate issue, per kind. Low-looking because reports
 * are short: two wordings of one problem share two or three words out of ten. Chosen on the
 * first corpus and the second set's development part (docs/development.md, Grouping quality),
 * precision first; what keeps precision is the weighting — codes, the pool's spread, the
 * evidence rule — not the threshold.
 */
export const JOIN_THRESHOLD: Readonly<Record<Signature['kind'], number>> = {
  // Every success of a tool joins its one success issue (the threshold is never consulted).
  success: 0,
  problem: 0.18,
  // Request wording ("please add an option to…") counts a quarter word (WEAK_WORDS), so what
  // is left is the thing asked for: two requests that share any of it ask for one thing, and
  // different requests on one tool share none (the development sets' requests kept their
  // precision of 1 down to 0.05).
  request: 0.08,
};
/**
 * A report this similar to a report a developer moved follows the move, ahead of any issue.
 * Far above JOIN_THRESHOLD: a developer's decision should pull in near-copies, not neighbours.
 */
export const PIN_THRESHOLD = 0.5;
/**
 * The adaptive bar. A report that comes at least NEAR_MISS_SHARE of the way to an issue's bar
 * and still opens an issue of its own is a near miss of that issue: a sign that its problem is
 * worded more ways than the bar allows (agents paraphrase, switch language, misspell), since
 * two different problems of one tool rarely come that close. From its first near miss, an
 * issue takes reports at LOWERED_BAR of the bar. Per issue, so a project's own wording
 * decides it; chosen on the development sets (docs/development.md, Grouping quality).
 */
export const NEAR_MISS_SHARE = 0.5;
export const LOWERED_BAR = 0.5;

export interface Candidate {
  readonly issueId: string;
  readonly signature: Signature;
  readonly memberCount: number;
  /** Reports that came close to this issue and opened their own (Assignment.nearMissOf); 0 if absent. */
  readonly nearMisses?: number;
}

/** A report a developer moved into `issueId` (or out into a new issue with that id). */
export interface PinnedExemplar {
  readonly issueId: string;
  readonly signature: Signature;
}

export interface AssignOptions {
  /** Overrides JOIN_THRESHOLD for problems and requests: for the evaluation's sweep, not production. */
  readonly joinThreshold?: number;
  /**
   * Whether a developer said two issues are not the same problem (a rejected suggestion). A
   * report whose closest issue was rejected against the issue it lies next closest to sits
   * between two problems the developer keeps apart: it joins only at the full bar, never at a
   * lowered one.
   */
  readonly rejected?: (a: string, b: string) => boolean;
}

export interface Assignment {
  /** The issue to join, or null: open a new issue with this report. */
  readonly issueId: string | null;
  /** Cosine similarity to the chosen (or, for a new issue, the closest) candidate, 0–1. */
  readonly similarity: number;
  /** One sentence for the issue page: why the report joined, or why it opened a new issue. */
  readonly reason: string;
  /**
   * For a new issue: the candidate the report came close to (NEAR_MISS_SHARE of the bar), whose
   * near misses the caller counts up by one; null otherwise.
   */
  readonly nearMissOf: string | null;
}

/**
 * Which issue a report joins. Deterministic: the same signature and candidates (in the same
 * order) always give the same answer; ties go to the larger issue, then the smaller id.
 * Candidates of another tool or kind are skipped, so a caller's loose query cannot mix them.
 */
export function assign(
  report: Signature,
  candidates: readonly Candidate[],
  pinned: readonly PinnedExemplar[] = [],
  options: AssignOptions = {},
): Assignment {
  const label = labelOf(report);
  const reportTerms = weighted(report);
  const toolText = report.tool === '' ? 'reports without a tool name' : report.tool;

  // A pinned exemplar counts as an issue of one report (for best's tie-break).
  const pin = best(pinned, PINNED_LIMIT, () => 1, reportTerms);
  if (pin && pin.similarity >= PIN_THRESHOLD) {
    return {
      issueId: pin.issueId,
      similarity: round(pin.similarity),
      reason: `${label}, ${format(pin.similarity)} similar to a report a developer moved here${sharedText(reportTerms, pin)}`,
      nearMissOf: null,
    };
  }

  const top = best(candidates, CANDIDATE_LIMIT, (c) => c.memberCount, reportTerms);
  if (report.kind === 'success' && top) {
    return {
      issueId: top.issueId,
      similarity: round(top.similarity),
      reason: `${label}: every success of a tool joins its successes issue`,
      nearMissOf: null,
    };
  }
  const bar = options.joinThreshold ?? JOIN_THRESHOLD[report.kind];
  const lowered =
    top !== undefined &&
    (top.nearMisses ?? 0) > 0 &&
    top.similarity < bar &&
    !betweenRejected(top, candidates, reportTerms, options);
  const threshold = lowered ? bar * LOWERED_BAR : bar;
  if (top && top.similarity >= threshold) {
    const because = lowered
      ? ` (its bar lowered to ${format(threshold)}: ${top.nearMisses} close report${top.nearMisses === 1 ? '' : 's'} opened issues of their own)`
      : '';
    return {
      issueId: top.issueId,
      similarity: round(top.similarity),
      reason: `${label}, ${format(top.similarity)} similar to its ${top.memberCount} report${top.memberCount === 1 ? '' : 's'}${sharedText(reportTerms, top)}${because}`,
      nearMissOf: null,
    };
  }
  const kind = report.kind;
  return {
    issueId: null,
    nearMissOf: top && top.similarity >= bar * NEAR_MISS_SHARE ? top.issueId : null,
    similarity: round(top?.similarity ?? 0),
    reason: top
      ? `new ${kind}: the closest ${kind} of ${toolText} is only ${format(top.similarity)} similar (joining takes ${format(threshold)})`
      : `new ${kind}: the first ${kind} of ${toolText}`,
  };
}

/**
 * Whether the report's closest issue was rejected against the one it lies next closest to.
 * Asked only when a lowered bar would decide, which is rare: a second pass then costs nothing
 * that matters.
 */
function betweenRejected(
  top: Candidate,
  candidates: readonly Candidate[],
  report: WeightedReport,
  options: AssignOptions,
): boolean {
  const { rejected } = options;
  if (!rejected) return false;
  const others = candidates.filter((candidate) => candidate.issueId !== top.issueId);
  const next = best(others, CANDIDATE_LIMIT - 1, (c) => c.memberCount, report);
  return next !== undefined && next.similarity > 0 && rejected(top.issueId, next.issueId);
}

/** How a reason names the report's tool: what it shares with the issue before anything else. */
export function labelOf(report: Signature): string {
  return report.tool === '' ? 'no tool named either' : `same tool ${report.tool}`;
}

/**
 * The most similar of the first `limit` issues (or exemplars) of the report's tool and kind;
 * ties go to the larger, then the smaller id. Called once or twice for every report: it
 * allocates nothing but its answer.
 */
function best<T extends PinnedExemplar>(
  issues: readonly T[],
  limit: number,
  membersOf: (issue: T) => number,
  report: WeightedReport,
): (Candidate & { similarity: number }) | undefined {
  const { kind, tool } = report.signature;
  let top: T | undefined;
  let topScore = 0;
  let topMembers = 0;
  const end = Math.min(issues.length, limit);
  for (let i = 0; i < end; i++) {
    const issue = issues[i] as T;
    // A caller's loose query cannot mix in another tool or kind.
    if (issue.signature.kind !== kind || issue.signature.tool !== tool) continue;
    const score = similarity(report, issue.signature);
    const members = membersOf(issue);
    if (
      !top ||
      score > topScore ||
      (score === topScore &&
        (members > topMembers ||
          (members === topMembers && compare(issue.issueId, top.issueId) < 0)))
    ) {
      top = issue;
      topScore = score;
      topMembers = members;
    }
  }
  return (
    top && {
      issueId: top.issueId,
      signature: top.signature,
      memberCount: topMembers,
      nearMisses: (top as Partial<Candidate>).nearMisses ?? 0,
      similarity: topScore,
    }
  );
}

function sharedText(report: WeightedReport, chosen: Candidate & { similarity: number }): string {
  const shared = chosen.similarity === 0 ? [] : sharedTerms(report, chosen.signature);
  return shared.length > 0 ? ` (shared: ${shared.join(', ')})` : '';
}
