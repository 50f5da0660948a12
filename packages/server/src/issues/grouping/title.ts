import { similarityTo } from './assign.js';
import { fingerprint, type GroupableReport, kindOf, mergeSignatures } from './signature.js';

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

function firstSentence(details: string): string {
  const text = details.replace(/\s+/g, ' ').trim();
  // A sentence ends at . ! ? followed by a space; dots inside names (file.ts, v1.2) do not end it.
  const end = text.search(/[.!?](?=\s)/);
  return (end === -1 ? text : text.slice(0, end)).replace(/[.:;,\s]+$/, '');
}

function shorten(text: string): string {
  if (text.length <= TITLE_MAX_LENGTH) return text;
  const cut = text.slice(0, TITLE_MAX_LENGTH - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > TITLE_MAX_LENGTH / 2 ? cut.slice(0, space) : cut).replace(/[.:;,\s]+$/, '')}…`;
}
