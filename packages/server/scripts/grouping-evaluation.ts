/**
 * Replays a labelled corpus through the grouping engine the way the background grouper runs
 * it — reports in arrival order, candidates bounded to CANDIDATE_LIMIT issues of the same tool
 * and kind, most recently seen first — and scores the result against the labels with pairwise
 * precision and recall. Shared by `npm run eval:grouping` and its test.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import {
  type AssignOptions,
  assign,
  CANDIDATE_LIMIT,
  type Candidate,
  fingerprint,
  mergeSignatures,
  RepeatedReports,
} from '../src/issues/grouping/index.js';

/**
 * The labelled corpus: hand-written agent reports about eight tools, one JSON object a line, in
 * arrival order (the clusters interleaved by a seeded shuffle; source and metadata vary per
 * report as they would between agents). `cluster` is the true issue; `lang` marks the reports
 * not written in English.
 */
export const CORPUS_PATH = new URL('../test/fixtures/grouping-corpus.jsonl', import.meta.url);
/**
 * Reports about two tools, written after the engine was tuned on the corpus (docs/development.md,
 * Grouping quality).
 */
export const HOLDOUT_PATH = new URL('../test/fixtures/grouping-holdout.jsonl', import.meta.url);
/**
 * The second labelled set (18 tools neither file above names), written problem first and told by
 * personas (test/fixtures/grouping-set2/make.py): the development part, which tuning may read,
 * and the held-out part, scored once after tuning.
 */
export const DEV2_PATH = new URL('../test/fixtures/grouping-dev2.jsonl', import.meta.url);
export const HELDOUT2_PATH = new URL('../test/fixtures/grouping-heldout2.jsonl', import.meta.url);
/**
 * The third labelled set (eight tools no file above names), written report by report as
 * different agents would (test/fixtures/grouping-set3/): the held-out set, scored once after
 * tuning. The second set's held-out part was scored before that tuning, so it is development
 * material now.
 */
export const HELDOUT3_PATH = new URL('../test/fixtures/grouping-heldout3.jsonl', import.meta.url);
export const HELDOUT4_PATH = new URL('../test/fixtures/grouping-heldout4.jsonl', import.meta.url);

const CorpusReport = z.object({
  cluster: z.string(),
  outcome: z.enum(['success', 'failure', 'confusing', 'gave_up', 'request']),
  tool_name: z.string().nullable(),
  source: z.string().nullable(),
  details: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  /** The report's language when it is not English (de, es, fr, it, pt). */
  lang: z.string().optional(),
});
export type CorpusReport = z.infer<typeof CorpusReport>;

export function loadCorpus(path: URL = CORPUS_PATH): CorpusReport[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => {
      const parsed = CorpusReport.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(`corpus line ${index + 1}: ${parsed.error.message}`);
      return parsed.data;
    });
}

export interface Grouped {
  /** The issue each report was put in, by report index. */
  readonly issueOf: string[];
  /** Why, by report index. */
  readonly reasons: string[];
}

/**
 * Groups the reports in order; issue ids are i1, i2… in creation order. A report that repeats
 * an earlier one goes where RepeatedReports says, as in the grouper, unless `repeats` is false.
 */
export function groupCorpus(
  reports: readonly CorpusReport[],
  options: AssignOptions & { repeats?: boolean } = {},
): Grouped {
  // Per tool and kind: the issues, most recently seen first (what the grouper's query returns).
  const byGroup = new Map<string, { issues: Candidate[]; repeats: RepeatedReports | null }>();
  const issueOf: string[] = [];
  const reasons: string[] = [];
  let created = 0;
  for (const report of reports) {
    const signature = fingerprint(report);
    const key = `${signature.tool}\u0000${signature.kind}`;
    const group = byGroup.get(key) ?? {
      issues: [],
      repeats: options.repeats === false ? null : new RepeatedReports(),
    };
    byGroup.set(key, group);
    const { issues, repeats } = group;
    const repeated = repeats?.recall(signature) ?? null;
    const assignment = repeated
      ? null
      : assign(signature, issues.slice(0, CANDIDATE_LIMIT), [], options);
    const choice = repeated ?? (assignment as NonNullable<typeof assignment>);
    let issue: Candidate;
    const missed = assignment?.nearMissOf;
    if (missed) {
      const at = issues.findIndex((candidate) => candidate.issueId === missed);
      const was = issues[at] as Candidate;
      issues[at] = { ...was, nearMisses: (was.nearMisses ?? 0) + 1 };
    }
    if (choice.issueId === null) {
      created += 1;
      issue = { issueId: `i${created}`, signature, memberCount: 1 };
    } else {
      const index = issues.findIndex((candidate) => candidate.issueId === choice.issueId);
      const [joined] = issues.splice(index, 1);
      if (!joined) throw new Error(`assign chose ${choice.issueId}, which was not a candidate`);
      issue = {
        issueId: joined.issueId,
        signature: mergeSignatures(joined.signature, signature),
        memberCount: joined.memberCount + 1,
        nearMisses: joined.nearMisses ?? 0,
      };
    }
    issues.unshift(issue);
    repeats?.placed(signature, issue.issueId, issue.signature, assignment);
    issueOf.push(issue.issueId);
    reasons.push(choice.reason);
  }
  return { issueOf, reasons };
}

export interface Scores {
  readonly reports: number;
  readonly trueClusters: number;
  readonly predictedIssues: number;
  readonly precision: number;
  readonly recall: number;
  readonly f1: number;
}

const pairs = (n: number) => (n * (n - 1)) / 2;

/**
 * Pairwise scores: of the pairs of reports the engine put together, the share that the labels
 * put together (precision), and of the pairs the labels put together, the share the engine did
 * (recall).
 */
export function pairwiseScores(truth: readonly string[], predicted: readonly string[]): Scores {
  const cells = new Map<string, number>();
  const trueSizes = new Map<string, number>();
  const predictedSizes = new Map<string, number>();
  truth.forEach((cluster, index) => {
    const issue = predicted[index] ?? '';
    cells.set(`${cluster}\u0000${issue}`, (cells.get(`${cluster}\u0000${issue}`) ?? 0) + 1);
    trueSizes.set(cluster, (trueSizes.get(cluster) ?? 0) + 1);
    predictedSizes.set(issue, (predictedSizes.get(issue) ?? 0) + 1);
  });
  const together = sum([...cells.values()].map(pairs));
  const predictedPairs = sum([...predictedSizes.values()].map(pairs));
  const truePairs = sum([...trueSizes.values()].map(pairs));
  const precision = predictedPairs === 0 ? 1 : together / predictedPairs;
  const recall = truePairs === 0 ? 1 : together / truePairs;
  return {
    reports: truth.length,
    trueClusters: trueSizes.size,
    predictedIssues: predictedSizes.size,
    precision,
    recall,
    f1: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall),
  };
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/** The corpus grouped and scored, overall and per kind of report. */
export function evaluateGrouping(
  reports: readonly CorpusReport[] = loadCorpus(),
  options: AssignOptions = {},
) {
  const grouped = groupCorpus(reports, options);
  const truth = reports.map((report) => report.cluster);
  const overall = pairwiseScores(truth, grouped.issueOf);
  const byOutcome = (outcomes: string[]) => {
    const indexes = reports.flatMap((report, index) =>
      outcomes.includes(report.outcome) ? [index] : [],
    );
    return pairwiseScores(
      indexes.map((index) => truth[index] ?? ''),
      indexes.map((index) => grouped.issueOf[index] ?? ''),
    );
  };
  return {
    grouped,
    overall,
    problems: byOutcome(['failure', 'confusing', 'gave_up']),
    requests: byOutcome(['request']),
    successes: byOutcome(['success']),
  };
}
