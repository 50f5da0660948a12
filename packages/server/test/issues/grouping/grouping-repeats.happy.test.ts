/**
 * RepeatedReports (issues/grouping/repeats.ts): a report that repeats an earlier one skips the
 * comparison with every candidate, and must land exactly where assign() would have put it.
 * Checked on the labelled corpus replayed with repeats mixed in, at several thresholds.
 */
import { describe, expect, it } from 'vitest';
import {
  type CorpusReport,
  groupCorpus,
  loadCorpus,
} from '../../../scripts/grouping-evaluation.js';
import { assign, fingerprint, RepeatedReports } from '../../../src/issues/grouping/index.js';

const corpus = loadCorpus();

/**
 * The corpus in order, with repeats of recent reports (the same text again, as agents send it)
 * mixed in by a seeded generator: about one report in two is a repeat, often of one several
 * reports back, so repeats interleave with other reports of the same tool.
 */
function withRepeats(reports: readonly CorpusReport[], seed: number): CorpusReport[] {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const stream: CorpusReport[] = [];
  for (const report of reports) {
    stream.push(report);
    while (next() < 0.5) {
      const back = Math.floor(next() * Math.min(stream.length, 8));
      stream.push(stream[stream.length - 1 - back] as CorpusReport);
    }
  }
  return stream;
}

describe('repeated reports', () => {
  it('go to the issue assign() would choose, on the corpus with repeats, at every threshold', () => {
    for (const seed of [1, 2, 3]) {
      const stream = withRepeats(corpus, seed);
      expect(stream.length).toBeGreaterThan(corpus.length * 1.5);
      for (const joinThreshold of [undefined, 0.1, 0.3, 0.5]) {
        const fast = groupCorpus(stream, { joinThreshold });
        const slow = groupCorpus(stream, { joinThreshold, repeats: false });
        expect(fast.issueOf).toEqual(slow.issueOf);
        const recalled = fast.reasons.filter((reason) => reason.includes('the same details as'));
        expect(recalled.length).toBeGreaterThan(stream.length / 5);
      }
    }
  });

  it('say which report they repeat, and are forgotten when another issue of the pool changes', () => {
    const report = (details: string) =>
      fingerprint({ outcome: 'failure', tool_name: 'search_issues', details });
    const timeout = report('search_issues timed out after 30 seconds on the second page');
    const dates = report('search_issues rejects the date 2026-03-01 as an invalid format');
    const repeats = new RepeatedReports();

    const first = assign(timeout, []);
    expect(first.issueId).toBeNull();
    repeats.placed(timeout, 'i1', timeout, first);
    expect(repeats.recall(timeout)).toEqual({
      issueId: 'i1',
      reason: 'same tool search_issues, the same details as the report that opened it',
    });
    expect(repeats.recall(dates)).toBeNull();

    // Another issue of the pool changed: what was known of i1's repeats no longer holds.
    repeats.placed(
      dates,
      'i2',
      dates,
      assign(dates, [{ issueId: 'i1', signature: timeout, memberCount: 1 }]),
    );
    expect(repeats.recall(timeout)).toBeNull();
    expect(repeats.recall(dates)?.issueId).toBe('i2');

    repeats.forget();
    expect(repeats.recall(dates)).toBeNull();
  });
});
