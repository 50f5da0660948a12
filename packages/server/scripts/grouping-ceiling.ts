/**
 * How far any grouping that sees only a report's words could go on a labelled set, with
 * hindsight: each pair of reports of one tool and kind gets a similarity (the engine's own
 * `likeness`, made symmetric, or a tf-idf cosine over the engine's terms), the reports are
 * clustered bottom-up (single, average or complete linkage) and the tree is cut at every
 * threshold; the best recall whose precision reaches the target is kept. The threshold is picked
 * knowing the labels, so it is an upper bound for these similarities, not a score an engine
 * could claim. `npm run eval:grouping -- --ceiling` prints it.
 */
import { fingerprint, kindOf, likeness, type Signature } from '../src/issues/grouping/index.js';
import { type CorpusReport, pairwiseScores } from './grouping-evaluation.js';

type Linkage = 'single' | 'average' | 'complete';
type Measure = 'engine' | 'tf-idf';

export interface Ceiling {
  readonly measure: Measure;
  readonly linkage: Linkage;
  /** The best recall at precision ≥ `precisionAtLeast`, its precision and threshold; null if none reaches it. */
  readonly best: { recall: number; precision: number; threshold: number } | null;
}

const THRESHOLDS = Array.from({ length: 60 }, (_, step) => 0.01 * (step + 1));

export function lexicalCeiling(
  reports: readonly CorpusReport[],
  precisionAtLeast = 0.9,
): Ceiling[] {
  const signatures = reports.map((report) => fingerprint(report));
  const groups = new Map<string, number[]>();
  reports.forEach((report, index) => {
    const key = `${signatures[index]?.tool}\u0000${kindOf(report.outcome)}`;
    groups.set(key, [...(groups.get(key) ?? []), index]);
  });
  const measures: Record<Measure, (a: number, b: number) => number> = {
    engine: (a, b) => {
      const [x, y] = [signatures[a] as Signature, signatures[b] as Signature];
      return (likeness(x, y).similarity + likeness(y, x).similarity) / 2;
    },
    'tf-idf': tfIdfCosine(signatures),
  };
  const truth = reports.map((report) => report.cluster);
  const results: Ceiling[] = [];
  for (const measure of ['engine', 'tf-idf'] as const) {
    for (const linkage of ['single', 'average', 'complete'] as const) {
      const merges = [...groups.values()].flatMap((members) =>
        mergeTree(members, measures[measure], linkage),
      );
      let best: Ceiling['best'] = null;
      for (const threshold of THRESHOLDS) {
        const scores = pairwiseScores(truth, cut(reports.length, merges, threshold));
        if (scores.precision >= precisionAtLeast && scores.recall > (best?.recall ?? -1))
          best = { recall: scores.recall, precision: scores.precision, threshold };
      }
      results.push({ measure, linkage, best });
    }
  }
  return results;
}

function tfIdfCosine(signatures: readonly Signature[]) {
  const documents = new Map<string, number>();
  for (const signature of signatures)
    for (const term of Object.keys(signature.terms))
      documents.set(term, (documents.get(term) ?? 0) + 1);
  const vectors = signatures.map((signature) => {
    const vector = new Map<string, number>();
    for (const term of Object.keys(signature.terms))
      vector.set(term, Math.log(signatures.length / (documents.get(term) ?? 1)));
    const norm = Math.hypot(...vector.values()) || 1;
    for (const [term, weight] of vector) vector.set(term, weight / norm);
    return vector;
  });
  return (a: number, b: number) => {
    let dot = 0;
    for (const [term, weight] of vectors[a] ?? []) dot += weight * (vectors[b]?.get(term) ?? 0);
    return dot;
  };
}

interface Merge {
  readonly a: number;
  readonly b: number;
  readonly similarity: number;
}

/** Agglomerative clustering of one group to the end: every merge with its similarity. */
function mergeTree(
  members: readonly number[],
  similarityOf: (a: number, b: number) => number,
  linkage: Linkage,
): Merge[] {
  const n = members.length;
  const sim = members.map((a) => members.map((b) => (a === b ? 0 : similarityOf(a, b))));
  const size = members.map(() => 1);
  const alive = members.map(() => true);
  const merges: Merge[] = [];
  for (let round = 1; round < n; round++) {
    let best = -Infinity;
    let [p, q] = [-1, -1];
    for (let i = 0; i < n; i++) {
      if (!alive[i]) continue;
      for (let j = i + 1; j < n; j++) {
        const value = sim[i]?.[j] ?? 0;
        if (alive[j] && value > best) [best, p, q] = [value, i, j];
      }
    }
    merges.push({ a: members[p] as number, b: members[q] as number, similarity: best });
    // Lance–Williams: q joins p; p's row becomes the merged cluster's.
    for (let k = 0; k < n; k++) {
      if (!alive[k] || k === p || k === q) continue;
      const [x, y] = [sim[p]?.[k] ?? 0, sim[q]?.[k] ?? 0];
      const merged =
        linkage === 'single'
          ? Math.max(x, y)
          : linkage === 'complete'
            ? Math.min(x, y)
            : (x * (size[p] ?? 1) + y * (size[q] ?? 1)) / ((size[p] ?? 1) + (size[q] ?? 1));
      (sim[p] as number[])[k] = merged;
      (sim[k] as number[])[p] = merged;
    }
    size[p] = (size[p] ?? 1) + (size[q] ?? 1);
    alive[q] = false;
  }
  return merges;
}

/** The clusters left when only the merges at or above the threshold are made. */
function cut(count: number, merges: readonly Merge[], threshold: number): string[] {
  const parent = Array.from({ length: count }, (_, index) => index);
  const root = (x: number): number => {
    while (parent[x] !== x) x = parent[x] as number;
    return x;
  };
  for (const merge of merges)
    if (merge.similarity >= threshold) parent[root(merge.a)] = root(merge.b);
  return parent.map((_, index) => `c${root(index)}`);
}
