/**
 * The grouping engine on the labelled corpus (test/fixtures/grouping-corpus.jsonl), through the
 * same replay as `npm run eval:grouping`: the precision and recall targets, and the corpus's
 * hard cases read one by one so a regression names what broke.
 */
import { describe, expect, it } from 'vitest';
import { lexicalCeiling } from '../../../scripts/grouping-ceiling.js';
import {
  CORPUS_PATH,
  DEV2_PATH,
  evaluateGrouping,
  HELDOUT2_PATH,
  HELDOUT3_PATH,
  HOLDOUT_PATH,
  loadCorpus,
} from '../../../scripts/grouping-evaluation.js';

const reports = loadCorpus();
const result = evaluateGrouping(reports);

/** The issue holding most of a true cluster's reports. */
function mainIssue(cluster: string): string {
  const counts = new Map<string, number>();
  reports.forEach((report, index) => {
    if (report.cluster !== cluster) return;
    const issue = result.grouped.issueOf[index] ?? '';
    counts.set(issue, (counts.get(issue) ?? 0) + 1);
  });
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
}

function issuesOf(cluster: string): Set<string> {
  return new Set(
    reports.flatMap((report, index) =>
      report.cluster === cluster ? [result.grouped.issueOf[index] ?? ''] : [],
    ),
  );
}

describe('grouping evaluation on the labelled corpus', () => {
  it('is a corpus of at least 300 reports in at least 30 clusters over about 8 tools', () => {
    expect(reports.length).toBeGreaterThanOrEqual(300);
    expect(new Set(reports.map((report) => report.cluster)).size).toBeGreaterThanOrEqual(30);
    expect(new Set(reports.map((report) => report.tool_name)).size).toBeGreaterThanOrEqual(8);
  });

  it('meets the targets: pairwise precision ≥ 0.90 and recall ≥ 0.80', () => {
    expect(result.overall.precision).toBeGreaterThanOrEqual(0.9);
    expect(result.overall.recall).toBeGreaterThanOrEqual(0.8);
  });

  it('puts every success of a tool in one issue, one per tool', () => {
    expect(result.successes.precision).toBe(1);
    expect(result.successes.recall).toBe(1);
  });

  it('keeps a pagination bug, a date-format error and a permission error on search_issues apart', () => {
    const clusters = [
      'search-pagination',
      'search-dateformat',
      'search-permission',
      'search-timeout',
    ];
    const mains = clusters.map(mainIssue);
    expect(new Set(mains).size).toBe(clusters.length);
    for (const [i, cluster] of clusters.entries()) {
      for (const other of clusters.slice(i + 1)) {
        const overlap = [...issuesOf(cluster)].filter((issue) => issuesOf(other).has(issue));
        expect(overlap, `${cluster} and ${other} share an issue`).toEqual([]);
      }
    }
  });

  it('keeps three different feature requests on search_issues in three issues', () => {
    const clusters = ['search-req-sort', 'search-req-assignee', 'search-req-body'];
    const all = clusters.map(issuesOf);
    const union = new Set(all.flatMap((issues) => [...issues]));
    expect(union.size).toBe(all.reduce((total, issues) => total + issues.size, 0));
  });

  it('joins the same timeout reported as failure and as gave_up', () => {
    for (const cluster of ['search-timeout', 'sql-timeout', 'web-timeout']) {
      const outcomes = new Set(
        reports.flatMap((report, index) =>
          report.cluster === cluster && result.grouped.issueOf[index] === mainIssue(cluster)
            ? [report.outcome]
            : [],
        ),
      );
      expect(outcomes, cluster).toContain('failure');
      expect(outcomes, cluster).toContain('gave_up');
    }
  });

  it('joins most of the other-language reports to their problem', () => {
    const indexes = reports.flatMap((report, index) =>
      report.lang !== undefined && report.outcome !== 'success' ? [index] : [],
    );
    expect(indexes.length).toBeGreaterThanOrEqual(25);
    const joined = indexes.filter(
      (index) => result.grouped.issueOf[index] === mainIssue(reports[index]?.cluster ?? ''),
    );
    // 27 of the corpus's 29 today; the bound leaves room for tuning elsewhere.
    expect(joined.length / indexes.length).toBeGreaterThanOrEqual(0.8);
  });

  it('is deterministic: the same reports in the same order make the same issues and reasons', () => {
    const again = evaluateGrouping(reports);
    expect(again.grouped).toEqual(result.grouped);
  });
});

describe('grouping evaluation on the held-out reports (two tools the engine was not tuned on)', () => {
  it('still does not merge different problems: precision ≥ 0.90', () => {
    // Recall there is below the corpus's: the engine splits what its vocabulary cannot bridge,
    // and a developer's merge then teaches it. Precision is the promise.
    const holdout = evaluateGrouping(loadCorpus(HOLDOUT_PATH));
    expect(holdout.overall.reports).toBeGreaterThanOrEqual(40);
    expect(holdout.overall.precision).toBeGreaterThanOrEqual(0.9);
    expect(holdout.successes.recall).toBe(1);
  });
});

describe('grouping evaluation on the second set (18 tools, written problem first)', () => {
  const dev = loadCorpus(DEV2_PATH);
  const heldOut = loadCorpus(HELDOUT2_PATH);

  it('is at least 600 reports about at least 15 tools the first corpus does not name', () => {
    const all = [...dev, ...heldOut];
    expect(all.length).toBeGreaterThanOrEqual(600);
    const tools = new Set(all.map((report) => report.tool_name));
    expect(tools.size).toBeGreaterThanOrEqual(15);
    const seen = new Set(
      [...loadCorpus(CORPUS_PATH), ...loadCorpus(HOLDOUT_PATH)].map((report) => report.tool_name),
    );
    expect([...tools].filter((tool) => seen.has(tool))).toEqual([]);
  });

  it('splits by cluster: no true problem is in both parts, a third held out', () => {
    const devClusters = new Set(dev.map((report) => report.cluster));
    expect(heldOut.filter((report) => devClusters.has(report.cluster))).toEqual([]);
    const share = heldOut.length / (dev.length + heldOut.length);
    expect(share).toBeGreaterThan(0.25);
    expect(share).toBeLessThan(0.4);
  });

  it('keeps precision on both parts and every success of a tool in one issue', () => {
    // Today 0.881 / 0.595 and 0.958 / 0.654 (BENCHMARKS.md). The bounds guard against a
    // regression, not the target.
    const development = evaluateGrouping(dev);
    expect(development.overall.precision).toBeGreaterThanOrEqual(0.85);
    expect(development.overall.recall).toBeGreaterThanOrEqual(0.48);
    expect(development.successes.recall).toBe(1);
    const held = evaluateGrouping(heldOut);
    expect(held.overall.precision).toBeGreaterThanOrEqual(0.9);
    expect(held.successes.recall).toBe(1);
  });
});

describe('grouping evaluation on the third set (8 tools, written report by report)', () => {
  const third = loadCorpus(HELDOUT3_PATH);

  it('is at least 200 reports about at least 6 tools no other labelled set names', () => {
    expect(third.length).toBeGreaterThanOrEqual(200);
    const tools = new Set(third.map((report) => report.tool_name));
    expect(tools.size).toBeGreaterThanOrEqual(6);
    const seen = new Set(
      [CORPUS_PATH, HOLDOUT_PATH, DEV2_PATH, HELDOUT2_PATH]
        .flatMap((path) => loadCorpus(path))
        .map((report) => report.tool_name),
    );
    expect([...tools].filter((tool) => seen.has(tool))).toEqual([]);
  });

  it('keeps every success of a tool in one issue', () => {
    // No bound on its precision or recall here: the sets' scores live in BENCHMARKS.md, and a
    // bound the engine had to pass would make a future held-out set development material.
    expect(evaluateGrouping(third).successes.recall).toBe(1);
  });
});

describe('what words alone can reach (--ceiling)', () => {
  const report = (cluster: string, details: string) => ({
    cluster,
    outcome: 'failure' as const,
    tool_name: 'upload_file',
    source: null,
    details,
    metadata: {},
  });

  it('finds every pair of two problems told in their own words, at precision 1', () => {
    const reports = [
      report('size', 'The upload is rejected: the file exceeds the 10 MB size limit'),
      report('size', 'Upload rejected because the file size is over the 10 MB limit'),
      report('size', 'File too large: exceeds the 10 MB size limit for uploads'),
      report('auth', 'Token expired, the storage bucket answered 401 unauthorized'),
      report('auth', 'Got 401 unauthorized from the bucket: expired token'),
    ];
    const ceilings = lexicalCeiling(reports);
    expect(ceilings).toHaveLength(6);
    for (const { best } of ceilings) expect(best?.recall).toBe(1);
  });

  it('finds no threshold when one problem is told in words another problem shares', () => {
    const reports = [
      report('size', 'big docs time out, result lost'),
      report(
        'size',
        'Long files never come back: the tool stops waiting before the service is done',
      ),
      report('other', 'big docs time out when the result is lost'),
    ];
    // Any cut that joins the first two also joins the third, which shares the first one's words.
    for (const { best } of lexicalCeiling(reports, 0.9))
      expect(best === null || best.recall === 0).toBe(true);
  });
});
