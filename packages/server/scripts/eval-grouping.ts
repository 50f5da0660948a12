/**
 * `npm run eval:grouping`: the grouping engine's pairwise precision and recall on three labelled
 * sets — the first corpus (its two files, tuned on and held out, replayed as one), the second
 * set (its development part, and its part held out until it was scored once, now development
 * material too) and the third set, held out — as a markdown table for BENCHMARKS.md, with
 * the CPU each set took. `--sweep` adds the scores at other join thresholds (not on the
 * held-out part); `--verbose` also lists each true cluster's spread over issues and each issue's
 * mix of clusters on the development part (or on `--corpus <file>`), which is what to read when
 * tuning; `--ceiling` adds, per set, the best recall at precision ≥ 0.90 that clustering the
 * reports by their words alone reaches with the threshold picked in hindsight (grouping-ceiling.ts).
 * Pure CPU, a second or two (the ceiling, a minute).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { lexicalCeiling } from './grouping-ceiling.js';
import {
  CORPUS_PATH,
  type CorpusReport,
  DEV2_PATH,
  evaluateGrouping,
  HELDOUT2_PATH,
  HELDOUT3_PATH,
  HELDOUT4_PATH,
  HOLDOUT_PATH,
  loadCorpus,
  type Scores,
} from './grouping-evaluation.js';

const sets: Array<{ name: string; reports: CorpusReport[] }> = [
  { name: 'first corpus', reports: [...loadCorpus(CORPUS_PATH), ...loadCorpus(HOLDOUT_PATH)] },
  { name: 'second set, development', reports: loadCorpus(DEV2_PATH) },
  { name: 'second set, held out before', reports: loadCorpus(HELDOUT2_PATH) },
  { name: 'third set', reports: loadCorpus(HELDOUT3_PATH) },
  { name: 'fourth set, held out', reports: loadCorpus(HELDOUT4_PATH) },
];

const row = (name: string, scores: Scores) =>
  `| ${name} | ${scores.reports} | ${scores.trueClusters} | ${scores.predictedIssues} | ${scores.precision.toFixed(3)} | ${scores.recall.toFixed(3)} | ${scores.f1.toFixed(3)} |`;

// Warm-up on every set: the first pass pays for module start-up and the JIT. The timed passes
// then hit the fingerprint cache only as far as a set repeats itself (it holds 512 texts).
for (const set of sets) evaluateGrouping(set.reports);

console.log('| set | reports | true clusters | issues made | precision | recall | F1 |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
const timings: string[] = [];
for (const set of sets) {
  // The median of five passes: the machine's other work makes single passes vary by half.
  const passes: number[] = [];
  let result = evaluateGrouping(set.reports);
  for (let pass = 0; pass < 5; pass++) {
    const started = process.cpuUsage();
    result = evaluateGrouping(set.reports);
    const used = process.cpuUsage(started);
    passes.push((used.user + used.system) / set.reports.length);
  }
  const median = passes.sort((a, b) => a - b)[2] ?? 0;
  timings.push(`${set.name} ${median.toFixed(0)} µs`);
  console.log(row(`${set.name}, all`, result.overall));
  console.log(row(`${set.name}, problems`, result.problems));
  console.log(row(`${set.name}, requests`, result.requests));
}
console.log(
  `\nCPU a report, fingerprint included, warm: ${timings.join(', ')}. Target (held out): precision ≥ 0.90, recall ≥ 0.85.`,
);

const corpusFlag = process.argv.indexOf('--corpus');
const corpusPath = corpusFlag === -1 ? undefined : process.argv[corpusFlag + 1];
const tuned = corpusPath ? loadCorpus(pathToFileURL(resolve(corpusPath))) : loadCorpus(DEV2_PATH);

if (process.argv.includes('--sweep')) {
  console.log('\n| join threshold | first corpus | second set, development |');
  console.log('| ---: | ---: | ---: |');
  for (const joinThreshold of [0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5]) {
    const cells = [sets[0]?.reports ?? [], tuned].map((reports) => {
      const { overall } = evaluateGrouping(reports, { joinThreshold });
      return `${overall.precision.toFixed(3)} / ${overall.recall.toFixed(3)}`;
    });
    console.log(`| ${joinThreshold.toFixed(2)} | ${cells.join(' | ')} |`);
  }
}

if (process.argv.includes('--verbose')) {
  const reports = tuned;
  const { issueOf, reasons } = evaluateGrouping(reports).grouped;
  const spread = new Map<string, Map<string, number>>();
  const mix = new Map<string, Map<string, number>>();
  reports.forEach((report, index) => {
    const issue = issueOf[index] ?? '';
    const bySpread = spread.get(report.cluster) ?? new Map<string, number>();
    bySpread.set(issue, (bySpread.get(issue) ?? 0) + 1);
    spread.set(report.cluster, bySpread);
    const byMix = mix.get(issue) ?? new Map<string, number>();
    byMix.set(report.cluster, (byMix.get(report.cluster) ?? 0) + 1);
    mix.set(issue, byMix);
  });
  const show = (counts: Map<string, number>) =>
    [...counts].map(([name, n]) => `${name}×${n}`).join(' ');
  console.log('\nTrue clusters split over several issues:');
  for (const [cluster, counts] of spread)
    if (counts.size > 1) console.log(`  ${cluster}: ${show(counts)}`);
  console.log('\nIssues mixing several true clusters:');
  for (const [issue, counts] of mix)
    if (counts.size > 1) console.log(`  ${issue}: ${show(counts)}`);
  if (process.argv.includes('--reasons')) {
    console.log('\nEvery report:');
    reports.forEach((report, index) => {
      console.log(
        `  ${issueOf[index]} [${report.cluster}] ${reasons[index]}\n      ${report.details.slice(0, 110)}`,
      );
    });
  }
}

if (process.argv.includes('--ceiling')) {
  const linkages = ['single', 'average', 'complete'];
  console.log(
    '\nBest recall at precision ≥ 0.90 of word-only clustering, threshold picked knowing the labels:',
  );
  console.log(
    `\n| set | ${['engine', 'tf-idf'].flatMap((m) => linkages.map((l) => `${m}, ${l}`)).join(' | ')} |`,
  );
  console.log(`| --- |${' ---: |'.repeat(6)}`);
  for (const set of sets) {
    const cells = lexicalCeiling(set.reports).map(({ best }) =>
      best ? `${best.recall.toFixed(3)} @ ${best.threshold.toFixed(2)}` : 'none',
    );
    console.log(`| ${set.name} | ${cells.join(' | ')} |`);
  }
}
