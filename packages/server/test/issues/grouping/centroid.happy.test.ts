import { describe, expect, it } from 'vitest';
import { CORPUS_PATH, DEV2_PATH, loadCorpus } from '../../../scripts/grouping-evaluation.js';
import {
  centroidOf,
  fingerprint,
  type GroupableReport,
  MAX_ISSUE_TERMS,
  mergeSignatures,
  serializeSignature,
} from '../../../src/issues/grouping/index.js';

/**
 * centroidOf, the signature the refresh makes an issue from its reports again, is what grouping
 * them one by one gives: the same JSON, with runs of one text merged at once, and past
 * MAX_ISSUE_TERMS where terms are dropped.
 */
const corpus: GroupableReport[] = [...loadCorpus(CORPUS_PATH), ...loadCorpus(DEV2_PATH)];

const oneByOne = (reports: readonly GroupableReport[]) =>
  reports.map((report) => fingerprint(report)).reduce(mergeSignatures);

describe('an issue signature made afresh from its reports', () => {
  it('is what grouping them one by one gives, runs of repeats included', () => {
    const byTool = new Map<string, GroupableReport[]>();
    for (const report of corpus) {
      const key = report.tool_name ?? '';
      byTool.set(key, [...(byTool.get(key) ?? []), report]);
    }
    for (const reports of byTool.values()) {
      // Each report, and every third one twice more: agents repeat themselves.
      const told = reports.flatMap((report, i) =>
        i % 3 === 0 ? [report, report, report] : [report],
      );
      expect(
        serializeSignature(centroidOf(told) as NonNullable<ReturnType<typeof centroidOf>>),
      ).toBe(serializeSignature(oneByOne(told)));
    }
  });

  it('keeps to MAX_ISSUE_TERMS as grouping does, and is null without reports', () => {
    const all = corpus.map((report) => ({ ...report, tool_name: 'one_tool' }));
    const made = centroidOf(all);
    expect(Object.keys(made?.terms ?? {}).length).toBe(MAX_ISSUE_TERMS);
    expect(made).toEqual(oneByOne(all));
    expect(centroidOf([])).toBeNull();
  });
});
