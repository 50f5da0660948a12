/**
 * `npm run eval:grouping`: the grouping engine's pairwise precision and recall on the labelled
 * corpus (packages/server/test/fixtures/grouping-corpus.jsonl), as a markdown table for
 * docs/development.md (Grouping quality). `--sweep` adds the scores at other join thresholds;
 * `--verbose` also lists each true cluster's spread over issues and each issue's mix of clusters,
 * which is what to read when tuning. Pure CPU, a second or two.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CORPUS_PATH,
  evaluateGrouping,
  HOLDOUT_PATH,
  loadCorpus,
  type Scores,
} from './grouping-evaluation.js';

// `--corpus <file>` scores another labelled file, e.g. the held-out set written after tuning.
const corpusFlag = process.argv.indexOf('--corpus');
const corpusPath = corpusFlag === -1 ? undefined : process.argv[corpusFlag + 1];
const reports = loadCorpus(corpusPath ? pathToFileURL(resolve(corpusPath)) : undefined);
// Timed after a warm-up on the other labelled file: the first pass pays for module start-up and
// the JIT, and a second pass over the same reports would only hit the fingerprint cache.
evaluateGrouping(loadCorpus(corpusPath ? CORPUS_PATH : HOLDOUT_PATH));
const started = process.cpuUsage();
const result = evaluateGrouping(reports);
const used = process.cpuUsage(started);
const elapsed = (used.user + used.system) / 1000;

const row = (name: string, scores: Scores) =>
  `| ${name} | ${scores.reports} | ${scores.trueClusters} | ${scores.predictedIssues} | ${scores.precision.toFixed(3)} | ${scores.recall.toFixed(3)} | ${scores.f1.toFixed(3)} |`;

console.log('| reports | n | true clusters | issues made | precision | recall | F1 |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
console.log(row('all', result.overall));
console.log(row('problems (failure, confusing, gave_up)', result.problems));
console.log(row('requests', result.requests));
console.log(row('successes', result.successes));
console.log(
  `\n${reports.length} reports grouped in ${elapsed.toFixed(0)} ms of CPU (${((elapsed * 1000) / reports.length).toFixed(0)} µs a report, fingerprint included, warm). Targets: precision ≥ 0.90, recall ≥ 0.80.`,
);

if (process.argv.includes('--sweep')) {
  console.log('\n| join threshold | issues made | precision | recall | F1 |');
  console.log('| ---: | ---: | ---: | ---: | ---: |');
  for (const joinThreshold of [0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5]) {
    const { overall } = evaluateGrouping(reports, { joinThreshold });
    console.log(
      `| ${joinThreshold.toFixed(2)} | ${overall.predictedIssues} | ${overall.precision.toFixed(3)} | ${overall.recall.toFixed(3)} | ${overall.f1.toFixed(3)} |`,
    );
  }
}

if (process.argv.includes('--verbose')) {
  const { issueOf, reasons } = result.grouped;
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
