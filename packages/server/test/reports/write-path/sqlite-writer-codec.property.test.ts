import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReportSubmission } from '../../../src/reports/write-path/index.js';
import type { BatchResult } from '../../../src/reports/write-path/sqlite/sqlite-thread-messages.js';
import {
  type Numbered,
  packResults,
  packSubmissions,
  unpackResults,
  unpackSubmissions,
} from '../../../src/reports/write-path/sqlite/sqlite-writer-codec.js';

/** Any text, and text made of the codec's own marks: lengths, ':' and '-'. */
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: fc.constantFrom('1', '2', ':', '-', '\u0000', '\ud800'), maxLength: 12 }),
);
const seq = fc.nat();

const submission: fc.Arbitrary<Numbered<ReportSubmission>> = fc.record({
  seq,
  item: fc.record({
    ingestKey: text,
    month: text,
    day: text,
    address: text,
    report: fc.record({
      id: text,
      outcome: text,
      toolName: fc.option(text, { nil: null }),
      source: fc.option(text, { nil: null }),
      details: text,
      metadata: fc.option(text, { nil: null }),
      createdAt: fc.date({ noInvalidDate: true }),
      redactions: fc.nat(),
    }),
  }),
});

const result: fc.Arbitrary<Numbered<BatchResult>> = fc.record({
  seq,
  item: fc.oneof(
    fc.record({ error: text, code: fc.option(text, { nil: null }) }),
    fc.record({ outcome: fc.record({ status: fc.constant('stored' as const), projectId: text }) }),
    fc.record({ outcome: fc.record({ status: fc.constant('unknown_key' as const) }) }),
    fc.record({
      outcome: fc.record({ status: fc.constant('quota_exceeded' as const), limit: fc.nat() }),
    }),
    fc.record({
      outcome: fc.record({
        status: fc.constantFrom('project_cap' as const, 'address_daily' as const),
        projectId: text,
        limit: fc.nat(),
      }),
    }),
  ),
});

describe('the SQLite writer codec', () => {
  it('gives back the submissions it packed, whatever their text', () => {
    fc.assert(
      fc.property(fc.array(submission, { maxLength: 8 }), (submissions) => {
        expect(unpackSubmissions(packSubmissions(submissions))).toEqual(submissions);
      }),
    );
  });

  it('gives back the results it packed', () => {
    fc.assert(
      fc.property(fc.array(result, { maxLength: 8 }), (results) => {
        expect(unpackResults(packResults(results))).toEqual(results);
      }),
    );
  });

  it('refuses a message that is not its own', () => {
    expect(() => unpackSubmissions('hello')).toThrow('malformed');
  });
});
