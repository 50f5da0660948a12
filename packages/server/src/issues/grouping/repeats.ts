import { type Assignment, labelOf } from './assign.js';
import type { Signature } from './signature.js';

/** Repeats remembered per pool at most; past it they are forgotten (only a shortcut is lost). */
const REPEATS_KEPT = 256;

/**
 * A report that repeats an earlier one of its pool (the same signature object: fingerprint()
 * hands back one per text) goes where assign() would send it without being compared with every
 * candidate again: agents repeat themselves (and the ingest bench sends one body), and the
 * comparison and its reason's text are most of the engine's cost a report (~2.5 µs of ~18 in
 * the SQLite writer, scratch measurement).
 *
 * One instance per pool (the candidates and pins of one project, tool and kind), told of every
 * placement into the pool's issues, in report order. It remembers the reports placed into the
 * issue the pool's last changes went to, and forgets them when a change goes elsewhere.
 *
 * Why the answer is assign()'s: report S went to issue I, and since then only I changed, each
 * time by a report joining it. The pins are as they were (triage changes them, and the grouper
 * then reads its pools anew), so none of them reached PIN_THRESHOLD for S, unless S followed one,
 * which it follows again. The other candidates are as they were, and S was not more similar to
 * any of them than to I. I's centroid c (each term's weight times the share of I's reports that
 * hold it) became c' = a·c + b·s with a, b > 0 when a report joined (s: the report's weights), so
 * S's cosine to I can only have grown after S joined; it stays unchanged or grows when another
 * report joins, as long as S's terms are all I's (checked when S is remembered: the issue then
 * keeps them, mergeSignatures trimming none of them). And I's report count only grew, which
 * keeps any tie I won. When S opened I, I holds S's terms alone (cosine 1), and no other
 * candidate had reached the threshold. A new issue in the pool could be closer: it clears all.
 */
export class RepeatedReports {
  #issueId: string | null = null;
  /** The reports placed in #issueId since the pool's changes went there, with their reason. */
  readonly #reasons = new Map<Signature, string>();

  /** Where `report` goes, if it repeats a report remembered here; else null (ask assign()). */
  recall(report: Signature): { issueId: string; reason: string } | null {
    const reason = this.#reasons.get(report);
    return reason === undefined || this.#issueId === null
      ? null
      : { issueId: this.#issueId, reason };
  }

  /**
   * After `report` was placed in issue `issueId` of this pool: as assign() chose (`assignment`),
   * a new issue it opened (`assignment.issueId` null), or as recall() said (`assignment` null).
   * `issue` is the issue's signature with the report added.
   */
  placed(
    report: Signature,
    issueId: string,
    issue: Signature,
    assignment: Assignment | null,
  ): void {
    const opened = assignment !== null && assignment.issueId === null;
    // A new issue has a new id: every change that is not to #issueId clears what is known.
    if (issueId !== this.#issueId) {
      this.#reasons.clear();
      this.#issueId = issueId;
    }
    if (assignment === null || this.#reasons.has(report)) return;
    const terms = Object.keys(report.terms);
    // A report without terms is 0 similar to everything, its own issue too: nothing is known.
    if (opened && terms.length === 0) return;
    if (!terms.every((term) => Object.hasOwn(issue.terms, term))) return;
    if (this.#reasons.size >= REPEATS_KEPT) this.#reasons.clear();
    this.#reasons.set(report, repeatReason(report, assignment, opened));
  }

  /** Something else changed an issue of the pool (a report of another pool followed a pin). */
  forget(): void {
    this.#issueId = null;
    this.#reasons.clear();
  }
}

function repeatReason(report: Signature, first: Assignment, opened: boolean): string {
  const label = labelOf(report);
  return opened
    ? `${label}, the same details as the report that opened it`
    : `${label}, the same details as an earlier report of it (that one joined ${first.similarity.toFixed(2)} similar)`;
}
