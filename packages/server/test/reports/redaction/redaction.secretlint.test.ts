import { lintSource } from '@secretlint/core';
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';
import { describe, expect, it } from 'vitest';
import { redactReport } from '../../../src/reports/redaction/redact-report.js';
import { BENIGN_TEXTS, SECRET_FIXTURES } from '../../support/redaction-fixtures.js';

/**
 * secretlint's recommended preset is the maintained yardstick (not run at ingest: too slow,
 * see secret-patterns.ts): whatever it flags in the fixtures, our redaction removes too.
 */
const config = {
  rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommended }],
};

async function flagged(text: string): Promise<string[]> {
  const result = await lintSource({
    source: { filePath: '/report.txt', content: text, contentType: 'text' },
    options: { config },
  });
  return result.messages.map((m) => text.slice(m.range[0], m.range[1]));
}

describe('redaction against secretlint recommended preset', () => {
  const texts = [
    ...SECRET_FIXTURES.map((f) => f.text ?? `The tool answered 401 after I passed ${f.secret}.`),
    ...BENIGN_TEXTS,
  ];

  it('redacts everything the preset flags in the fixtures', async () => {
    let checked = 0;
    for (const text of texts) {
      const redacted = redactReport(
        { outcome: 'failure', details: text, tool_name: null, source: null, metadata: null },
        { personalData: false },
      ).input.details;
      for (const secret of await flagged(text)) {
        checked += 1;
        // The flagged span may include context (a URL's user); its secret part must be gone.
        expect(redacted, `secretlint flagged ${secret}`).not.toBe(text);
        expect(redacted.includes(secret), `secretlint flagged ${secret}`).toBe(false);
      }
    }
    // The preset does find some of them: the comparison is not vacuous.
    expect(checked).toBeGreaterThan(5);
  });
});
