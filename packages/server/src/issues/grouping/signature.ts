import { z } from 'zod';
import { foldText, MAX_TEXT_LENGTH, termsOf } from './normalise.js';

/**
 * What an issue is about: a success, a problem (failure, confusing, gave_up — one timeout
 * reported as `failure` by one agent and `gave_up` by the next is one problem) or a request.
 */
export const GroupingKind = z.enum(['success', 'problem', 'request']);
export type GroupingKind = z.infer<typeof GroupingKind>;

/** The fields of a report the engine reads. */
export interface GroupableReport {
  readonly outcome: string;
  readonly tool_name: string | null;
  readonly source?: string | null;
  readonly details: string;
  readonly metadata?: Readonly<Record<string, unknown>> | null;
}

/** The shape of a stored signature (its JSON fields): the `version` it carries. */
export const SIGNATURE_VERSION = 1;
/**
 * The rules that turn a text into terms (normalise.ts, stemming.ts, the vocabularies, the
 * stop-word and stemmer packages): bumped whenever the terms any text gives change, so that
 * the signatures stored under older rules are recomputed from their reports (the grouper's
 * refresh, issues/pipeline/signature-refresh.ts). Not in the signature's JSON: a centroid is a
 * sum of reports, and one whose reports were read under two rules is stale all the same; the
 * stamp is stored beside it (migration 0035). test/issues/grouping/terms-version.happy.test.ts
 * fails when the corpus's terms change and this does not.
 */
export const TERMS_VERSION = 2;
/** An issue keeps its most frequent terms only, so its signature stays a few KB however large it grows. */
export const MAX_ISSUE_TERMS = 240;

/**
 * A report's or an issue's fingerprint, stored as JSON. A report's has `members: 1` and each
 * term once; an issue's (see mergeSignatures) counts, per term, how many of its reports hold it
 * — its centroid. `words` (reports only) keeps a readable word per term for the reason text.
 */
export const Signature = z.object({
  version: z.literal(SIGNATURE_VERSION),
  kind: GroupingKind,
  /** The tool name, lowercased and trimmed; '' when the report names none. */
  tool: z.string(),
  members: z.number().int().positive(),
  terms: z.record(z.string(), z.number().positive()),
  words: z.record(z.string(), z.string()).optional(),
});
export type Signature = z.infer<typeof Signature>;

export function kindOf(outcome: string): GroupingKind {
  if (outcome === 'success') return 'success';
  if (outcome === 'request') return 'request';
  return 'problem';
}

export function toolKey(toolName: string | null): string {
  if (!toolName) return '';
  let key = toolKeyCache.get(toolName);
  if (key === undefined) {
    key = foldText(toolName.trim());
    if (toolKeyCache.size >= 10_000) toolKeyCache.clear();
    toolKeyCache.set(toolName, key);
  }
  return key;
}
/** A project's tools are few and every report names one: folded once each. */
const toolKeyCache = new Map<string, string>();

/**
 * The tool's own name says nothing about which of its problems a report is about (every
 * `search_issues` report says "search" and "issues"), so its words are stop words here.
 */
function toolWords(tool: string): ReadonlySet<string> {
  let words = toolWordCache.get(tool);
  if (!words) {
    const parts = tool.match(/[\p{L}\p{N}]+/gu) ?? [];
    // Its whole name too, as the code term an agent quoting it makes (`#search_issues`).
    const code = tool.includes('_') ? [`#${tool}`] : [];
    words = new Set(parts.flatMap((word) => [word, termsOf(word)[0]?.term ?? word]).concat(code));
    if (toolWordCache.size >= 10_000) toolWordCache.clear();
    toolWordCache.set(tool, words);
  }
  return words;
}
const toolWordCache = new Map<string, ReadonlySet<string>>();

/**
 * A report's signature. Only `details` is read for the text: `source` and `metadata` name the
 * agent, not the problem, and grouping the same problem from two agents apart would split it.
 * The result is frozen and may be shared: agents repeat themselves (and the ingest bench sends
 * one body), so the last FINGERPRINT_CACHE_SIZE distinct inputs are remembered.
 */
export function fingerprint(report: GroupableReport): Signature {
  const tool = toolKey(report.tool_name);
  const kind = kindOf(report.outcome);
  const text =
    report.details.length > MAX_TEXT_LENGTH
      ? report.details.slice(0, MAX_TEXT_LENGTH)
      : report.details;
  // By kind and tool, then by the text itself: no key of the whole text is built per report.
  const scope = `${kind}\u0000${tool}`;
  let byText = fingerprints.get(scope);
  const cached = byText?.get(text);
  if (cached) return cached;
  const terms: Record<string, number> = {};
  const words: Record<string, string> = {};
  for (const { term, word } of termsOf(report.details, toolWords(tool)).sort(byTerm)) {
    terms[term] = 1;
    words[term] = word;
  }
  const signature: Signature = Object.freeze({
    version: SIGNATURE_VERSION,
    kind,
    tool,
    members: 1,
    terms: Object.freeze(terms),
    words: Object.freeze(words),
  });
  if (fingerprintCount >= FINGERPRINT_CACHE_SIZE) {
    fingerprints.clear();
    fingerprintCount = 0;
    byText = undefined;
  }
  if (!byText) {
    byText = new Map();
    fingerprints.set(scope, byText);
  }
  byText.set(text, signature);
  fingerprintCount++;
  return signature;
}
const FINGERPRINT_CACHE_SIZE = 512;
/** Signatures by kind and tool, then by text; FINGERPRINT_CACHE_SIZE of them in all. */
const fingerprints = new Map<string, Map<string, Signature>>();
let fingerprintCount = 0;

/** A signature as stored (JSON text); handed back as it came, not checked again. */
export function parseSignature(text: string): Signature {
  return JSON.parse(text) as Signature;
}

/** A signature's stored text. */
export function serializeSignature(signature: Signature): string {
  return JSON.stringify(signature);
}

/**
 * The issue's signature after `report` joins it (or after two issues merge: both arguments may
 * be issue signatures). Keeps the MAX_ISSUE_TERMS most frequent terms, ties by name, so the
 * result depends only on the inputs.
 */
export function mergeSignatures(issue: Signature, report: Signature): Signature {
  return mergeRepeats(issue, report, 1);
}

/**
 * mergeSignatures `times` over: exactly what as many merges of `report` one after another give
 * (counts are whole numbers, so their sums are exact). A name of its own, not a third argument
 * of mergeSignatures, which callers hand to `reduce`.
 */
export function mergeRepeats(issue: Signature, report: Signature, times: number): Signature {
  let merged = issue;
  // After one merge the report's terms are likely all the issue's: the common case, at once.
  for (let left = times; left > 0; left -= 1) {
    const added = addedWithin(merged.terms, report.terms, left);
    if (added) {
      const grown: Signature = {
        version: SIGNATURE_VERSION,
        kind: merged.kind,
        tool: merged.tool,
        members: merged.members + report.members * left,
        terms: added,
      };
      growths.set(grown, { issue: merged, report, times: left });
      return grown;
    }
    const before = merged;
    merged = mergedOnce(merged, report);
    if (Object.keys(merged.terms).length >= Object.keys(before.terms).length && !trimmed)
      growths.set(merged, { issue: before, report, times: 1 });
  }
  return merged;
}

/**
 * How an issue's signature grew from another by whole reports, none of its terms dropped: the
 * terms' counts are the other's plus the report's `times` over. assign.ts derives what it
 * computes from terms (trigram sums) from the earlier signature's instead of anew.
 */
export interface Growth {
  readonly issue: Signature;
  readonly report: Signature;
  readonly times: number;
}
const growths = new WeakMap<Signature, Growth>();
export function grownFrom(issue: Signature): Growth | undefined {
  return growths.get(issue);
}
/** Whether the last mergedOnce dropped terms past MAX_ISSUE_TERMS. */
let trimmed = false;

function mergedOnce(issue: Signature, report: Signature): Signature {
  // for…in and a plain object built key by key: a mature issue's 240 terms through
  // Object.entries, two sorts with a callback and Object.fromEntries took ~106 µs a joining
  // report, ~65 this way (a scratch loop of 3,000 varied reports into one issue).
  const counts = new Map<string, number>();
  for (const term in issue.terms) counts.set(term, issue.terms[term] as number);
  for (const term in report.terms)
    counts.set(term, (counts.get(term) ?? 0) + (report.terms[term] as number));
  let kept = [...counts.keys()];
  trimmed = kept.length > MAX_ISSUE_TERMS;
  if (trimmed) kept = mostFrequent(counts, kept);
  // The default sort compares strings by code unit, as compare() does, without a callback.
  kept.sort();
  // Terms are `#` and letters or digits (normalise.ts): never `__proto__`.
  const terms: Record<string, number> = {};
  for (const term of kept) terms[term] = counts.get(term) as number;
  return {
    version: SIGNATURE_VERSION,
    kind: issue.kind,
    tool: issue.tool,
    members: issue.members + report.members,
    terms,
  };
}

/**
 * The MAX_ISSUE_TERMS terms that come first by count (descending), then by term: those above
 * the MAX_ISSUE_TERMS-th largest count, and of those at it the first by term: the counts sorted
 * as numbers, not the terms by a callback.
 */
function mostFrequent(counts: ReadonlyMap<string, number>, terms: readonly string[]): string[] {
  const ascending = Float64Array.from(counts.values()).sort();
  const threshold = ascending[ascending.length - MAX_ISSUE_TERMS] as number;
  const above = terms.filter((term) => (counts.get(term) as number) > threshold);
  const at = terms.filter((term) => counts.get(term) === threshold).sort();
  return above.concat(at.slice(0, MAX_ISSUE_TERMS - above.length));
}

/**
 * The common case of mergeSignatures, without the union of the terms, its sort and its object
 * built key by key: every term of the report is already one of the issue's, and the issue keeps
 * them all. The result is then the issue's terms with the counts added (`times` over), in the
 * same order (by term): exactly what the general path would give, as many times, since the
 * terms stay the same. Null otherwise.
 */
function addedWithin(
  terms: Readonly<Record<string, number>>,
  more: Readonly<Record<string, number>>,
  times: number,
): Record<string, number> | null {
  for (const term of Object.keys(more)) if (!Object.hasOwn(terms, term)) return null;
  if (Object.keys(terms).length > MAX_ISSUE_TERMS) return null;
  // A copy keeps the keys' order; V8 clones a plain object's layout at once (it ran for every
  // report and built the sum key by key).
  const sum: Record<string, number> = { ...terms };
  for (const term of Object.keys(more))
    sum[term] = (sum[term] as number) + (more[term] as number) * times;
  return sum;
}

/**
 * An issue's signature made afresh from its reports, in report order (oldest first): what
 * grouping them one by one gives it (fingerprint, then mergeSignatures), a run of reports
 * with one text merged at once (mergeRepeats). Null for no reports.
 */
export function centroidOf(reports: readonly GroupableReport[]): Signature | null {
  let centroid: Signature | null = null;
  let run: Signature | null = null;
  let times = 0;
  for (const report of reports) {
    const signature = fingerprint(report);
    if (centroid === null) {
      centroid = signature;
      continue;
    }
    if (signature === run) {
      times += 1;
      continue;
    }
    if (run !== null) centroid = mergeRepeats(centroid, run, times);
    run = signature;
    times = 1;
  }
  return centroid !== null && run !== null ? mergeRepeats(centroid, run, times) : centroid;
}

/**
 * The issue's signature after `report` moves out of it: the inverse of mergeSignatures, up to
 * the terms mergeSignatures had already dropped. Null when nothing is left (the issue is empty).
 */
export function removeFromSignature(issue: Signature, report: Signature): Signature | null {
  const members = issue.members - report.members;
  if (members <= 0) return null;
  const terms: Record<string, number> = {};
  for (const [term, count] of Object.entries(issue.terms)) {
    const left = count - (report.terms[term] ?? 0);
    if (left > 0) terms[term] = left;
  }
  return { version: SIGNATURE_VERSION, kind: issue.kind, tool: issue.tool, members, terms };
}

function byTerm(a: { term: string }, b: { term: string }): number {
  return compare(a.term, b.term);
}

/** Code-unit order, not locale order, so every machine sorts alike. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
