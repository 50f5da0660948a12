/**
 * Report text is attacker-controlled and the grouper fingerprints every report in one
 * background loop, so one hostile report must not stall it: every hostile shape is fingerprinted
 * (a backtracking pattern would hang here until the test times out), and a signature stays
 * bounded whatever the size. How fast each shape goes is measured by `npm run bench:text`.
 */
import { describe, expect, it } from 'vitest';
import {
  fingerprint,
  MAX_ISSUE_TERMS,
  mergeSignatures,
} from '../../../src/issues/grouping/index.js';
import { MAX_REPORT_TERMS } from '../../../src/issues/grouping/normalise.js';
import { HOSTILE_DETAILS } from '../../support/hostile-text.js';

describe('fingerprint on hostile text', () => {
  it.each(Object.entries(HOSTILE_DETAILS))('handles %s boundedly', (_name, details) => {
    const signature = fingerprint({ outcome: 'failure', tool_name: 'x', details });
    expect(Object.keys(signature.terms).length).toBeLessThanOrEqual(MAX_REPORT_TERMS);
    expect(JSON.stringify(signature).length).toBeLessThan(8 * 1024);
  });

  it('keeps an issue signature bounded however many distinct reports join it', () => {
    let issue = fingerprint({ outcome: 'failure', tool_name: 'x', details: 'start' });
    for (let index = 0; index < 200; index++) {
      const words = Array.from({ length: 30 }, (_, word) =>
        `t${index}q${word}z`.replace(/\d/g, (d) => 'abcdefghij'[Number(d)] ?? ''),
      );
      issue = mergeSignatures(
        issue,
        fingerprint({ outcome: 'failure', tool_name: 'x', details: words.join(' ') }),
      );
    }
    expect(issue.members).toBe(201);
    expect(Object.keys(issue.terms).length).toBeLessThanOrEqual(MAX_ISSUE_TERMS);
  });
});
