/**
 * Report text is attacker-controlled and the grouper fingerprints every report in one
 * background loop, so one hostile report must not stall it: no input may make the
 * normalisation's patterns backtrack for long, and a signature stays bounded whatever the size.
 */
import { describe, expect, it } from 'vitest';
import {
  fingerprint,
  MAX_ISSUE_TERMS,
  mergeSignatures,
} from '../../../src/issues/grouping/index.js';
import { MAX_REPORT_TERMS } from '../../../src/issues/grouping/normalise.js';

const DETAILS_MAX_LENGTH = 10_000;
/** Shapes that make naive patterns backtrack: long runs of one class, alternations, separators. */
const HOSTILE: Record<string, string> = {
  'one long word': 'a'.repeat(DETAILS_MAX_LENGTH),
  'letters and digits': 'a1'.repeat(DETAILS_MAX_LENGTH / 2),
  'hex-like run': 'ab12'.repeat(DETAILS_MAX_LENGTH / 4),
  digits: '1'.repeat(DETAILS_MAX_LENGTH),
  'dashed identifier': 'a-'.repeat(DETAILS_MAX_LENGTH / 2),
  'dotted number': '1.'.repeat(DETAILS_MAX_LENGTH / 2),
  'case flips': 'aB'.repeat(DETAILS_MAX_LENGTH / 2),
  'double quotes': '"'.repeat(DETAILS_MAX_LENGTH),
  'single quotes between spaces': " '".repeat(DETAILS_MAX_LENGTH / 2),
  'path segments': '/a'.repeat(DETAILS_MAX_LENGTH / 2),
  'at signs': 'a@'.repeat(DETAILS_MAX_LENGTH / 2),
  'clock times': '1:'.repeat(DETAILS_MAX_LENGTH / 2),
  'words with digits': 'abc123 '.repeat(DETAILS_MAX_LENGTH / 7),
  'status phrases': 'returned 5 '.repeat(DETAILS_MAX_LENGTH / 11),
  emoji: '😀'.repeat(DETAILS_MAX_LENGTH / 2),
  'many distinct words': Array.from({ length: 2000 }, (_, index) => `w${index.toString(36)}x`).join(
    ' ',
  ),
};

describe('fingerprint on hostile text', () => {
  it.each(Object.entries(HOSTILE))('handles %s quickly and boundedly', (_name, details) => {
    fingerprint({ outcome: 'failure', tool_name: 'x', details: 'warm up' });
    const started = performance.now();
    const signature = fingerprint({ outcome: 'failure', tool_name: 'x', details });
    const elapsed = performance.now() - started;
    // A backtracking pattern takes seconds on these; linear work takes well under 10 ms. The
    // bound is loose because the test machine's CPU is shared.
    expect(elapsed).toBeLessThan(250);
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
