import { fingerprint, type GroupableReport, kindOf, mergeSignatures } from './signature.js';
import { similarityTo } from './similarity.js';

/** Titles fit one line of the issue list. */
export const TITLE_MAX_LENGTH = 80;
/** The title is chosen among the first reports: enough to find a typical one, bounded. */
const TITLE_SAMPLE = 20;

/**
 * A short readable title for an issue, made from its reports (oldest first): the first
 * sentence of the most typical report — the one most similar to the centroid, the
 * earliest on a tie — cut at a word to TITLE_MAX_LENGTH. Successes are titled by their tool,
 * since what they share is that the tool worked.
 */
export function titleFor(reports: readonly GroupableReport[]): string {
  const first = reports[0];
  if (!first) return 'Untitled issue';
  const tool = first.tool_name?.trim() || 'reports without a tool name';
  if (kindOf(first.outcome) === 'success') return `Successful calls of ${tool}`;

  const sample = reports.slice(0, TITLE_SAMPLE);
  const signatures = sample.map(fingerprint);
  const centroid = signatures.slice(1).reduce(mergeSignatures, signatures[0] ?? fingerprint(first));
  let chosen = first;
  let bestScore = -1;
  sample.forEach((report, index) => {
    const signature = signatures[index];
    const score = signature ? similarityTo(signature, centroid) : 0;
    if (score > bestScore) {
      bestScore = score;
      chosen = report;
    }
  });
  return shorten(firstSentence(chosen.details)) || `${tool}: ${first.outcome}`;
}

/** A first sentence shorter than this says what failed but seldom why: the next one joins it. */
const SHORT_SENTENCE = 40;
/** Words whose dot ends no sentence: "z. B.", "e.g.", "bzw.", "ca.", "Nr." … */
const ABBREVIATION =
  /(?:^|[\s(])(?:\p{L}|e\.g|i\.e|bzw|ca|etc|usw|vs|inkl|evtl|ggf|nr|no|approx|dr|vgl)$/iu;

function firstSentence(details: string): string {
  const text = details.replace(/\s+/g, ' ').trim();
  const first = sentenceEnd(text, 0);
  if (first === -1) return text.replace(/[.:;,\s]+$/, '');
  let end = first;
  // "Search failed. The API answered 500 …": a bare symptom keeps its cause.
  if (end < SHORT_SENTENCE) {
    const second = sentenceEnd(text, end + 1);
    end = second === -1 ? text.length : second;
  }
  return text.slice(0, end).replace(/[.:;,\s]+$/, '');
}

/**
 * Where the sentence starting at or before `from` ends: at . ! ? followed by a space, unless
 * the dot belongs to a name (file.ts, v1.2: no space follows), an abbreviation (ABBREVIATION) or
 * an open parenthesis. -1: the text is one sentence.
 */
function sentenceEnd(text: string, from: number): number {
  let depth = 0;
  for (let i = from; i < text.length; i += 1) {
    const c = text[i];
    if (c === '(' || c === '[') depth += 1;
    else if ((c === ')' || c === ']') && depth > 0) depth -= 1;
    else if ((c === '.' || c === '!' || c === '?') && text[i + 1] === ' ' && depth === 0) {
      if (c === '.' && ABBREVIATION.test(text.slice(Math.max(0, i - 8), i))) continue;
      return i;
    }
  }
  return -1;
}

function shorten(text: string): string {
  if (text.length <= TITLE_MAX_LENGTH) return text;
  let cut = text.slice(0, TITLE_MAX_LENGTH - 1);
  const space = cut.lastIndexOf(' ');
  if (space > TITLE_MAX_LENGTH / 2) cut = cut.slice(0, space);
  // Never end inside a parenthesis: "enthält (z…" reads as a typo. Cut before it opened.
  const open = unclosedOpening(cut);
  if (open > TITLE_MAX_LENGTH / 3) cut = cut.slice(0, open);
  return `${cut.replace(/[.:;,\s([]+$/, '')}…`;
}

/** Where the first parenthesis or bracket left open in `text` starts; -1 when none is. */
function unclosedOpening(text: string): number {
  const opened: number[] = [];
  for (let i = 0; i < text.length; i += 1) {
    if (text[i] === '(' || text[i] === '[') opened.push(i);
    else if ((text[i] === ')' || text[i] === ']') && opened.length > 0) opened.pop();
  }
  return opened[0] ?? -1;
}
