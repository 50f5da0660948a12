/**
 * The grouping engine: which issue a report belongs to. Pure and deterministic — no database,
 * no clock, no randomness — so the background grouper, the evaluation script and the tests all
 * run the same code, and the same reports in the same order always make the same issues.
 *
 * Use: `fingerprint(report)` once per report (store it); `assign(signature, candidates,
 * pinned)` with at most CANDIDATE_LIMIT candidate issues of the same project, tool and kind,
 * most recently seen first; on a join store `mergeSignatures(issue, report)` as the issue's
 * signature (a new issue starts from the report's signature); `titleFor(reports)` names it.
 *
 * Triage: a merge stores `mergeSignatures(into, from)` (both are issue signatures). A move takes
 * `removeFromSignature` off the old issue and merges into the new one, and the moved report's
 * signature becomes a pinned exemplar `{issueId: target, signature}`: pass the project's pins
 * for the tool, most recent first, as `assign`'s third argument and reports very like the moved
 * one (PIN_THRESHOLD) follow it. A new issue's `assignment.nearMissOf` names the candidate the
 * report came close to: count it in that candidate's `nearMisses` (stored with the issue), which
 * lowers its bar (LOWERED_BAR). A `RepeatedReports` per candidate set, told of every
 * placement, answers for a report that repeats an earlier one as `assign` would, without it.
 * Signatures are stored as JSON (`serializeSignature`, `parseSignature`; the `Signature` schema
 * checks one). SIGNATURE_VERSION is the JSON's shape; TERMS_VERSION the rules that turn text
 * into terms: store it beside every signature, and one stored under an older TERMS_VERSION is
 * recomputed from its reports (`centroidOf`, a report's with `fingerprint`); it is still read,
 * and used, until then. `likeness(signature, issue)` scores how alike two signatures are, with
 * the reason, by the rules assign uses (for a "similar issues" list). This is the engine's one entry, and
 * these are its names: storage, the pipeline (issues/pipeline/) and triage call them as they are.
 */
export {
  type Assignment,
  type AssignOptions,
  assign,
  CANDIDATE_LIMIT,
  type Candidate,
  JOIN_THRESHOLD,
  LOWERED_BAR,
  NEAR_MISS_SHARE,
  PIN_THRESHOLD,
  PINNED_LIMIT,
  type PinnedExemplar,
} from './assign.js';
export { RepeatedReports } from './repeats.js';
export {
  centroidOf,
  fingerprint,
  type GroupableReport,
  GroupingKind,
  kindOf,
  MAX_ISSUE_TERMS,
  mergeRepeats,
  mergeSignatures,
  parseSignature,
  removeFromSignature,
  SIGNATURE_VERSION,
  Signature,
  serializeSignature,
  TERMS_VERSION,
} from './signature.js';
export { type Likeness, likeness } from './similarity.js';
export { TITLE_MAX_LENGTH, titleFor } from './title.js';
