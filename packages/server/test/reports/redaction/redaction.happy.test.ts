import { SECRET_PREFILTER, type ValidReportInput } from '@debrief/protocol';
import { describe, expect, it } from 'vitest';
import { redactReport } from '../../../src/reports/redaction/redact-report.js';
import { SECRETISH_DETAILS } from '../../support/hostile-text.js';
import { BENIGN_TEXTS, SECRET_FIXTURES } from '../../support/redaction-fixtures.js';

const report = (details: string, extra: Partial<ValidReportInput> = {}): ValidReportInput => ({
  outcome: 'failure',
  details,
  tool_name: null,
  source: null,
  metadata: null,
  ...extra,
});
const noPersonal = { personalData: false };

describe('redactReport', () => {
  it.each(SECRET_FIXTURES)('redacts a $kind', ({ kind, secret, text }) => {
    const details = text ?? `The tool answered 401 after I passed ${secret} as documented.`;
    expect(SECRET_PREFILTER.test(details)).toBe(true);
    const result = redactReport(report(details), noPersonal);
    expect(result.input.details).not.toContain(secret);
    expect(result.input.details).toContain(`[REDACTED:${kind}]`);
    expect(result.redactions).toBeGreaterThanOrEqual(1);
  });

  it('keeps the words around a secret and counts each one', () => {
    const jwt = SECRET_FIXTURES.find((f) => f.kind === 'jwt')!.secret;
    const { input, redactions } = redactReport(
      report(`Authorization: Bearer ${jwt} then postgres://u:pw123@h/db`),
      noPersonal,
    );
    // The JWT wins over the generic bearer pattern: one redaction, the specific kind.
    expect(input.details).toBe(
      'Authorization: Bearer [REDACTED:jwt] then postgres://u:[REDACTED:url_password]@h/db',
    );
    expect(redactions).toBe(2);
  });

  it.each(BENIGN_TEXTS)('leaves benign text alone: %s', (text) => {
    const input = report(text, { tool_name: 'search_logs', source: 'claude-code' });
    const result = redactReport(input, noPersonal);
    expect(result.redactions).toBe(0);
    expect(result.input).toBe(input);
  });

  it('scans tool_name, source and metadata string values', () => {
    const gh = SECRET_FIXTURES.find((f) => f.kind === 'github_token')!.secret;
    const npm = SECRET_FIXTURES.find((f) => f.kind === 'npm_token')!.secret;
    const { input, redactions } = redactReport(
      report('fine', {
        tool_name: `deploy ${gh}`,
        source: `ci ${npm}`,
        metadata: { model: 'x-1', token: 'plain-looking', note: `key ${gh}`, tries: 3, ok: true },
      }),
      noPersonal,
    );
    expect(input.tool_name).toBe('deploy [REDACTED:github_token]');
    expect(input.source).toBe('ci [REDACTED:npm_token]');
    expect(input.metadata).toEqual({
      model: 'x-1',
      token: '[REDACTED:credential]',
      note: 'key [REDACTED:github_token]',
      tries: 3,
      ok: true,
    });
    expect(redactions).toBe(4);
  });

  it('does not touch metadata keys that only look like credentials', () => {
    const input = report('ok', {
      metadata: { max_tokens: '1024', session_id: 'abc', author: 'x' },
    });
    expect(redactReport(input, noPersonal)).toEqual({ input, redactions: 0 });
  });

  it('redacts a private key that was cut off before its END line', () => {
    const text = 'key was -----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yBYuBr2Td';
    expect(redactReport(report(text), noPersonal).input.details).toBe(
      'key was [REDACTED:private_key]',
    );
  });

  it('redacts emails and phone numbers only when the project asks for it', () => {
    const text =
      'Customer jane.doe+test@example.co.uk called from +44 20 7946 0958 and (415) 555-0132 on 2026-11-21, order 1234567.';
    expect(redactReport(report(text), noPersonal).redactions).toBe(0);
    const { input, redactions } = redactReport(report(text), { personalData: true });
    expect(input.details).toBe(
      'Customer [REDACTED:email] called from [REDACTED:phone] and [REDACTED:phone] on 2026-11-21, order 1234567.',
    );
    expect(redactions).toBe(3);
  });

  it('finds no phone numbers in ids, dates, versions and addresses', () => {
    for (const text of BENIGN_TEXTS) {
      expect(redactReport(report(text), { personalData: true }).redactions, text).toBe(0);
    }
  });

  // A catastrophically backtracking pattern would hang here until the test times out; how fast
  // the text goes is measured by `npm run bench:text`.
  it('scans long text that hits the prefilter everywhere', () => {
    const result = redactReport(report(SECRETISH_DETAILS), { personalData: true });
    expect(result.input.outcome).toBe('failure');
    expect(result.input.details.length).toBeGreaterThan(0);
  });
});
