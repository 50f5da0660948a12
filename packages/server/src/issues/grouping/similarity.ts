import { gramsOf, isShoutedCode } from './normalise.js';
import { compare, grownFrom, type Signature } from './signature.js';
import { stemOf } from './stemming.js';
import { WEAK_WORDS } from './words.vocabulary.js';

/*
 * How alike a report is to an issue: each of the report's terms weighed by what it says (a
 * concept, an error code, a word, a trigram), against the share of the issue's reports that
 * carry it. Pure; cached per signature object, since a batch compares one report with many
 * issues and one issue with many reports.
 */

const WEAK_STEMS: ReadonlySet<string> = new Set(WEAK_WORDS.map((word) => stemOf(word)));

/** A concept (#timeout, #auth…) is the problem named outright: it counts twice. */
const CONCEPT_WEIGHT = 2;
/** An error code or a snake_case name counts as a word: the centroid's codes also veto (below). */
const CODE_WEIGHT = 1;
/** A trigram of a word: a word of five letters has five, so together they weigh about a word. */
const GRAM_WEIGHT = 0.3;
/** A placeholder says a report quoted some number or path, a weak hint of what it is about. */
const PLACEHOLDER_WEIGHT = 0.3;
const WEAK_WEIGHT = 0.25;
/** A number's unit says what it measures (a size, a wait), a hint without naming the problem. */
const MEASURE_WEIGHT = 0.6;
const MEASURE_NAMES = new Set(['#duration', '#size']);
const PLACEHOLDER_NAMES = new Set([
  '#num',
  '#id',
  '#hex',
  '#time',
  '#quoted',
  '#path',
  '#url',
  '#email',
  '#blob',
]);

/** How much a term says about which problem this is. */
function weightOf(term: string): number {
  let weight = weights.get(term);
  if (weight === undefined) {
    if (term.startsWith('~')) weight = GRAM_WEIGHT;
    else if (PLACEHOLDER_NAMES.has(term)) weight = PLACEHOLDER_WEIGHT;
    else if (MEASURE_NAMES.has(term)) weight = MEASURE_WEIGHT;
    else if (isCode(term)) weight = CODE_WEIGHT;
    else if (term.startsWith('#')) weight = CONCEPT_WEIGHT;
    else weight = WEAK_STEMS.has(term) ? WEAK_WEIGHT : 1;
    if (weights.size >= WEIGHTS_KEPT) weights.clear();
    weights.set(term, weight);
  }
  return weight;
}
/** Terms whose weight is remembered: a project's vocabulary, a few MB at most. */
const WEIGHTS_KEPT = 50_000;
const weights = new Map<string, number>();

/** The share of an issue's reports that hold a term: its weight in the centroid. */
function share(count: number, members: number): number {
  return count / members;
}

/** An issue's centroid norm, remembered per signature object: signatures are never mutated. */
const norms = new WeakMap<Signature, number>();
function normOf(issue: Signature): number {
  let norm = norms.get(issue);
  if (norm === undefined) {
    norm = 0;
    const { terms, members } = issue;
    for (const term of Object.keys(terms)) {
      const value = weightOf(term) * share(terms[term] as number, members);
      norm += value * value;
    }
    for (const count of gramsOfIssue(issue).values()) {
      const value = GRAM_WEIGHT * share(count, members);
      norm += value * value;
    }
    norms.set(issue, norm);
  }
  return norm;
}

/**
 * A report's terms with their squared weights, and its norm: computed once per report, not
 * once per candidate it is compared with (up to CANDIDATE_LIMIT + PINNED_LIMIT).
 */
export interface WeightedReport {
  readonly signature: Signature;
  readonly terms: readonly string[];
  readonly squares: readonly number[];
  readonly norm: number;
  /** Whether the report quotes an error code (or a snake_case name). */
  readonly hasCode: boolean;
  /** Whether one of its codes is written in lower case (a field's or an error's name, not shouted). */
  readonly hasField: boolean;
  /** How many of `terms` are words, concepts and codes: they come first, the trigrams after. */
  readonly words: number;
  /** Per term, whether it is an error code. */
  readonly codes: readonly boolean[];
}

/**
 * Remembered per signature object, as normOf is: a repeated report (agents repeat themselves,
 * and the fingerprint cache hands back the same object) is weighed once.
 */
const weightedReports = new WeakMap<Signature, WeightedReport>();
export function weighted(report: Signature): WeightedReport {
  let result = weightedReports.get(report);
  if (result) return result;
  const words = Object.keys(report.terms);
  const grams = [...gramsOfTerms(words).keys()];
  const terms = words.concat(grams);
  const squares = terms.map((term, i) => {
    const weight = i < words.length ? weightOf(term) : GRAM_WEIGHT;
    return weight * weight;
  });
  let norm = 0;
  for (const square of squares) norm += square;
  result = {
    signature: report,
    terms,
    squares,
    norm,
    hasCode: words.some(isCode),
    hasField: words.some(isField),
    words: words.length,
    codes: terms.map(isCode),
  };
  weightedReports.set(report, result);
  return result;
}

/**
 * Cosine similarity of the report's weighted terms against the issue's centroid (each term's
 * weight times the share of the issue's reports that hold it). A centroid rather than the
 * first report: an issue learns the ways its problem gets worded as reports join.
 */
export function similarity(report: WeightedReport, issue: Signature): number {
  const { terms, squares, codes } = report;
  const issueTerms = issue.terms;
  let dot = 0;
  let evidence = 0;
  let sharesCode = false;
  for (let i = 0; i < report.words; i++) {
    const count = issueTerms[terms[i] as string];
    if (count === undefined) continue;
    const square = squares[i] as number;
    dot += square * share(count, issue.members);
    evidence += square;
    if (codes[i]) sharesCode = true;
  }
  // Trigrams only refine a match of words: they are most of a report's terms, and an issue
  // that shares no word with the report is not its problem, however its letters fall.
  if (dot === 0) return 0;
  const issueGrams = gramsOfIssue(issue);
  for (let i = report.words; i < terms.length; i++) {
    const count = issueGrams.get(terms[i] as string);
    if (count === undefined) continue;
    const square = squares[i] as number;
    dot += square * share(count, issue.members);
    evidence += square;
  }
  let score = dot / Math.sqrt(report.norm * normOf(issue));
  // Less than two plain words' worth shared is a coincidence more often than a problem.
  if (evidence < MIN_EVIDENCE) score *= SCANT_FACTOR;
  // Two different error codes are two different answers of the tool; two different field names
  // as the tool spells them (`labelIds`, `assigneeId`), two different problems.
  if (report.hasCode && !sharesCode && codeShareOf(issue) >= CODE_SHARE)
    score *= report.hasField && fieldShareOf(issue) >= CODE_SHARE ? FIELD_VETO : SCANT_FACTOR;
  return score;
}

/**
 * Character trigrams of the word terms (normalise.ts gramsOf), with how many of them hold each:
 * a second, fuzzier view of the same words, derived rather than stored, so signatures keep
 * their words only. A trigram counts once per word that holds it: a sum of the word counts, so
 * an issue's trigrams grow with its words as a centroid does (repeats.ts relies on it).
 */
function gramsOfTerms(
  terms: readonly string[],
  counts?: Readonly<Record<string, number>>,
): Map<string, number> {
  const grams = new Map<string, number>();
  for (const term of terms) {
    if (term.charCodeAt(0) === HASH) continue;
    const count = counts ? (counts[term] as number) : 1;
    for (const gram of gramsOf(term)) grams.set(gram, (grams.get(gram) ?? 0) + count);
  }
  return grams;
}
const HASH = '#'.charCodeAt(0);

/** An issue's trigrams, remembered per signature object as its norm is. */
const issueGrams = new WeakMap<Signature, ReadonlyMap<string, number>>();
function gramsOfIssue(issue: Signature): ReadonlyMap<string, number> {
  let grams = issueGrams.get(issue);
  if (!grams) {
    grams = grownGrams(issue) ?? gramsOfTerms(Object.keys(issue.terms), issue.terms);
    issueGrams.set(issue, grams);
  }
  return grams;
}

/**
 * An issue's trigrams from those of the issue it grew from, when a report joined it without
 * dropping a term (signature.ts grownFrom): the same sums, without going over its few hundred
 * words again after every report.
 */
function grownGrams(issue: Signature): Map<string, number> | null {
  const growth = grownFrom(issue);
  const before = growth && issueGrams.get(growth.issue);
  if (!growth || !before) return null;
  const grams = new Map(before);
  for (const term of Object.keys(growth.report.terms)) {
    if (term.charCodeAt(0) === HASH) continue;
    const added = (growth.report.terms[term] as number) * growth.times;
    for (const gram of gramsOf(term)) grams.set(gram, (grams.get(gram) ?? 0) + added);
  }
  return grams;
}
/** Shared weight (squared) below which a match counts SCANT_FACTOR: less than two plain words. */
const MIN_EVIDENCE = 1.5;
const SCANT_FACTOR = 0.5;
/** The share of an issue's reports quoting an error code, from which its codes define it. */
const CODE_SHARE = 0.3;
/**
 * The veto when both name a lower-case code (isField): stronger than between shouted ones, which
 * are as often the agent's own values (`API_TOKEN` against `DATABASE_URL` in one problem).
 */
const FIELD_VETO = 0.25;

function isCode(term: string): boolean {
  return term.includes('_') || /^#[en]\d/.test(term);
}

/** A code as the tool spells it in lower case: not shouted, not a number. */
function isField(term: string): boolean {
  return isCode(term) && !isShoutedCode(term) && !/^#e\d/.test(term);
}

/** The share of an issue's reports that hold its most frequent lower-case code, as codeShareOf. */
const fieldShares = new WeakMap<Signature, number>();
function fieldShareOf(issue: Signature): number {
  return topShareOf(issue, isField, fieldShares);
}

/** The share of an issue's reports that hold its most frequent code term, remembered per signature. */
const codeShares = new WeakMap<Signature, number>();
function codeShareOf(issue: Signature): number {
  return topShareOf(issue, isCode, codeShares);
}

/** The share of an issue's reports that hold its most frequent term of a kind, remembered in `kept`. */
function topShareOf(
  issue: Signature,
  isOfKind: (term: string) => boolean,
  kept: WeakMap<Signature, number>,
): number {
  let most = kept.get(issue);
  if (most === undefined) {
    let top = 0;
    for (const term of Object.keys(issue.terms))
      if (isOfKind(term)) top = Math.max(top, issue.terms[term] as number);
    most = top / issue.members;
    kept.set(issue, most);
  }
  return most;
}

/** Cosine similarity of a report's signature to an issue's (title.ts picks its exemplar by it). */
export function similarityTo(report: Signature, issue: Signature): number {
  return similarity(weighted(report), issue);
}

/** How alike two signatures are, and why: what a "similar issues" list shows beside a candidate. */
export interface Likeness {
  /** 0–1, on the scale of JOIN_THRESHOLD. */
  readonly similarity: number;
  /** One sentence: the shared words, codes or concepts that weigh most. */
  readonly reason: string;
}

/**
 * The engine's similarity of one signature (a report's or an issue's: its terms are read as
 * present or not) to an issue's centroid, with the same features and rules as assign — codes,
 * trigrams, the evidence rule — and the words that weigh most among those shared. Not
 * symmetric, as a report's to an issue's is not: pass the one to place first. Signatures of
 * another tool or kind are compared too; the reason says so, since the engine never joins them.
 */
export function likeness(signature: Signature, issue: Signature): Likeness {
  const report = weighted(signature);
  const score = similarity(report, issue);
  const shared = score === 0 ? [] : sharedTerms(report, issue);
  const apart =
    signature.tool !== issue.tool || signature.kind !== issue.kind
      ? ` (another ${signature.tool !== issue.tool ? 'tool' : 'kind'}: never joined by the engine)`
      : '';
  const words = shared.length > 0 ? `, shared: ${shared.join(', ')}` : '';
  return {
    similarity: round(score),
    reason: `${format(score)} similar${words}${apart}`,
  };
}

/** Shared terms named in a reason. */
const SHARED_SHOWN = 3;

/**
 * The SHARED_SHOWN shared terms that weigh most (ties by term), as readable words: for the
 * reason of the chosen one. Picked in one pass rather than sorted: it runs for every report.
 */
export function sharedTerms(report: WeightedReport, issue: Signature): string[] {
  const top: WeighedTerm[] = [];
  // Words only: trigrams are not terms of an issue, and no reason names them.
  for (let i = 0; i < report.words; i++) {
    const term = report.terms[i] as string;
    const count = issue.terms[term];
    if (count === undefined || PLACEHOLDER_NAMES.has(term)) continue;
    const weight = (report.squares[i] as number) * share(count, issue.members);
    let at = top.length;
    while (at > 0 && outranks(term, weight, top[at - 1] as WeighedTerm)) at--;
    if (at >= SHARED_SHOWN) continue;
    top.splice(at, 0, { term, weight });
    if (top.length > SHARED_SHOWN) top.pop();
  }
  return top.map(({ term }) => report.signature.words?.[term] ?? term.replace(/^#/, ''));
}

interface WeighedTerm {
  term: string;
  weight: number;
}

function outranks(term: string, weight: number, other: WeighedTerm): boolean {
  return weight > other.weight || (weight === other.weight && compare(term, other.term) < 0);
}

export function format(value: number): string {
  return value.toFixed(2);
}

export function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
