/**
 * PLACEHOLDER of the grouping engine (issue 18, item 2), built in parallel elsewhere and
 * swapped in at merge: same path, same exports. It is deliberately simple — a report's
 * signature is its kind, tool and a few normalised words, and `assign` matches signatures
 * exactly — so that storage, the grouper and triage can be built and tested against it. Only
 * issues/issue-grouping.ts calls it.
 */

export interface GroupableReport {
  outcome: string;
  tool_name: string | null;
  source: string | null;
  details: string;
  metadata: Record<string, unknown> | null;
}

/** JSON-serialisable; stored as text on the issue and on pinned exemplars. */
export interface Signature {
  kind: string;
  tool: string | null;
  words: string[];
}

export interface Candidate {
  issueId: string;
  signature: Signature;
  memberCount: number;
}

export interface Pinned {
  issueId: string;
  signature: Signature;
}

export interface Assignment {
  /** null: the report starts a new issue. */
  issueId: string | null;
  similarity: number;
  reason: string;
}

const STOP = new Set(['the', 'a', 'an', 'to', 'of', 'and', 'or', 'is', 'was', 'in', 'on', 'for']);

function kindOf(outcome: string): string {
  if (outcome === 'success') return 'success';
  if (outcome === 'request') return 'request';
  return 'problem';
}

export function fingerprint(report: GroupableReport): Signature {
  const words = report.details
    .toLowerCase()
    .replace(/[0-9a-f]{8,}|\d+/g, ' ')
    .split(/[^\p{L}]+/u)
    .filter((w) => w.length > 2 && !STOP.has(w))
    .slice(0, 3);
  return { kind: kindOf(report.outcome), tool: report.tool_name, words };
}

function same(a: Signature, b: Signature): boolean {
  return a.kind === b.kind && a.tool === b.tool && a.words.join(' ') === b.words.join(' ');
}

export function assign(
  signature: Signature,
  candidates: Candidate[],
  pinned: Pinned[] = [],
): Assignment {
  const pin = pinned.find((p) => same(p.signature, signature));
  if (pin) return { issueId: pin.issueId, similarity: 1, reason: 'like a report moved here' };
  const match = candidates.find((c) => same(c.signature, signature));
  if (match)
    return { issueId: match.issueId, similarity: 1, reason: 'same tool, same leading words' };
  return { issueId: null, similarity: 0, reason: 'no similar issue' };
}

export function mergeSignatures(issueSig: Signature, _reportSig: Signature): Signature {
  return issueSig;
}

export function titleFor(reports: Pick<GroupableReport, 'details' | 'tool_name'>[]): string {
  const first = reports[0];
  if (!first) return 'Untitled issue';
  const text = first.details.replace(/\s+/g, ' ').trim();
  const short = text.length > 80 ? `${text.slice(0, 79)}…` : text;
  return first.tool_name ? `${first.tool_name}: ${short}` : short;
}
