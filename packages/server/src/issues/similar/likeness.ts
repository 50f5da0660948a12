import { assign, JOIN_THRESHOLD, parseSignature, type Signature } from '../grouping/index.js';

/**
 * How alike two issues are, by the grouping engine's own measure, called through its entry
 * (grouping/index.ts assign): each issue's terms against the other's centroid, the larger of the
 * two ways, with the words they share. Pure.
 */

/** Kinds whose issues are suggested as duplicates: a tool's successes are one issue already. */
export const SUGGESTED_KINDS: ReadonlySet<string> = new Set(['problem', 'request']);

/** Suggested from half the similarity a report needs to join an issue. */
export function suggestFrom(kind: string): number {
  return (JOIN_THRESHOLD[kind as keyof typeof JOIN_THRESHOLD] ?? 0.2) / 2;
}

export interface Likeness {
  score: number;
  reason: string;
  /** As alike as a report must be to join an issue. */
  joins: boolean;
}

const SHARED = /\(shared: ([^)]*)\)\s*$/;

/** A stored signature, or null when it cannot be read (an "unsorted" issue stores none). */
export function signatureOf(text: string): Signature | null {
  try {
    const parsed = parseSignature(text);
    return parsed && typeof parsed === 'object' && parsed.terms ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * `oneWay`: only a's terms against b's centroid (would a's reports join b?), half the cost, for
 * the list's flags.
 */
export function likeness(
  a: { signature: Signature | null; members: number },
  b: { signature: Signature | null; members: number },
  oneWay = false,
): Likeness | null {
  const one = a.signature;
  const two = b.signature;
  if (!one || !two || one.kind !== two.kind || one.tool !== two.tool) return null;
  // A threshold of 0: the engine always answers with the candidate, its similarity and reason.
  const ab = assign(one, [{ issueId: 'b', signature: two, memberCount: b.members }], [], {
    joinThreshold: 0,
  });
  const ba = oneWay
    ? ab
    : assign(two, [{ issueId: 'a', signature: one, memberCount: a.members }], [], {
        joinThreshold: 0,
      });
  const top = ab.similarity >= ba.similarity ? ab : ba;
  if (top.issueId === null) return null;
  const shared = SHARED.exec(top.reason)?.[1];
  const score = Math.min(1, Math.max(0, top.similarity));
  const kind = one.kind as keyof typeof JOIN_THRESHOLD;
  return {
    score,
    reason: shared
      ? `${score.toFixed(2)} similar: both mention ${shared}`
      : `${score.toFixed(2)} similar (${top.reason})`,
    joins: score >= (JOIN_THRESHOLD[kind] ?? 0.2),
  };
}
