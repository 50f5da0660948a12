import {
  type Assignment,
  assign,
  type Candidate,
  fingerprint,
  mergeRepeats,
  mergeSignatures,
  type PinnedExemplar,
  RepeatedReports,
  removeFromSignature,
  type Signature,
  titleFor,
} from './grouping/index.js';

/**
 * The one door to the grouping engine (issues/grouping/): the grouper and triage call these,
 * never the engine itself, so the engine can be replaced without touching storage. Signatures
 * are opaque here: stored as JSON text, handed back as they came.
 */

export type { Assignment, Signature };

/**
 * Told of every placement into a pool's issues, it answers for a report that repeats an earlier
 * one exactly as chooseIssue would, without comparing it with every candidate
 * (grouping/repeats.ts says why it is the same answer). One per pool, kept with it.
 */
export { RepeatedReports };

/**
 * What the engine is given of a report: its text, tool and outcome. Not its `source` or
 * `metadata`, which name the agent rather than the problem (grouping/signature.ts), so the
 * grouper neither reads them nor parses the metadata's JSON.
 */
export interface GroupingInput {
  outcome: string;
  tool_name: string | null;
  details: string;
}

/**
 * The engine's own bounds (at most 200 candidate issues and 100 remembered moves a report), so
 * the grouper reads exactly as many as the engine will look at; and its kind of a report, the
 * class that bounds the candidates beside the tool (`failure`, `confusing` and `gave_up` are one
 * problem, while a success and a feature request never share an issue with a problem).
 */
export {
  CANDIDATE_LIMIT,
  kindOf as issueKindOf,
  PINNED_LIMIT,
} from './grouping/index.js';

export function signatureOf(report: GroupingInput): Signature {
  return fingerprint({
    outcome: report.outcome,
    tool_name: report.tool_name,
    details: report.details,
  });
}

export function parseSignature(text: string): Signature {
  return JSON.parse(text) as Signature;
}

export function serializeSignature(signature: Signature): string {
  return JSON.stringify(signature);
}

/** The issue a report joins (null: a new one), with the engine's similarity and reason. */
export function chooseIssue(
  signature: Signature,
  candidates: readonly { issueId: string; signature: Signature; memberCount: number }[],
  pinned: readonly { issueId: string; signature: Signature }[],
): Assignment {
  return assign(signature, candidates as Candidate[], pinned as PinnedExemplar[]);
}

/**
 * An issue's signature with a report (or a merged issue's signature) added to it, `times` times:
 * the same as adding it that many times one after another.
 */
export function widenSignature(issue: Signature, report: Signature, times = 1): Signature {
  return times === 1 ? mergeSignatures(issue, report) : mergeRepeats(issue, report, times);
}

/** An issue's signature with a moved-out report taken off; null when nothing is left. */
export function narrowSignature(issue: Signature, report: Signature): Signature | null {
  return removeFromSignature(issue, report);
}

export function issueTitle(
  reports: Pick<GroupingInput, 'details' | 'tool_name' | 'outcome'>[],
): string {
  return titleFor(reports);
}
