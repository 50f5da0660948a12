import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  fingerprint,
  type GroupableReport,
  TERMS_VERSION,
} from '../../../src/issues/grouping/index.js';

/**
 * TERMS_VERSION stamps every stored signature: when the terms a text gives change and it does
 * not, the signatures stored under the older rules are never refreshed, and reports of known
 * problems open new issues after the upgrade. So the terms of a fixed corpus (the labelled sets'
 * reports and a line per rule: camelCase fields, bounds, codes, five other languages) are
 * recorded with the version they belong to: a change of the rules that changes them fails here
 * until the version is bumped and the new hash recorded. It reads what the engine gives, not its
 * sources, so an upgrade of the stemmer or stop-word packages is caught too, and a comment or a
 * refactoring is not.
 */
const RECORDED = {
  termsVersion: 2,
  sha256: 'aa864816a3bdec486970805bb609232b9d3750b12325ce16c839b923ac40a255',
};

const corpus = readFileSync(new URL('../../fixtures/terms-corpus.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as GroupableReport);

describe('the stamp of the grouping engine term rules', () => {
  it('is bumped whenever the terms of the corpus change', () => {
    const hash = createHash('sha256');
    for (const report of corpus) {
      // Terms only: the readable words beside them are for reasons, and never stored in issues.
      hash.update(`${Object.keys(fingerprint(report).terms).join(' ')}\n`);
    }
    const sha256 = hash.digest('hex');
    const recorded = TERMS_VERSION === RECORDED.termsVersion && sha256 === RECORDED.sha256;
    expect(
      recorded,
      sha256 === RECORDED.sha256
        ? `TERMS_VERSION is ${TERMS_VERSION} but the terms are those recorded for ${RECORDED.termsVersion}: record the version in this test.`
        : `The terms the grouping engine reads from test/fixtures/terms-corpus.jsonl changed (sha256 ${sha256}, recorded ${RECORDED.sha256} for TERMS_VERSION ${RECORDED.termsVersion}). ` +
            'Stored signatures made under the old rules would keep their old terms: bump TERMS_VERSION in src/issues/grouping/signature.ts ' +
            '(after the upgrade the grouper refreshes them from their reports), then record the new version and sha256 here. ' +
            `(Only the corpus changed, not the rules? Record the sha256 and keep the version.)`,
    ).toBe(true);
  });
});
