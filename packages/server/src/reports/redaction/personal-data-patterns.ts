import type { SecretPattern } from '@debrief/protocol';
import { isValidPhoneNumber } from 'libphonenumber-js';

/**
 * Email addresses and phone numbers, redacted only for projects that turn the option on
 * (`redact_personal_data`, docs/operating.md, Secrets and redaction): on by default they would
 * eat the tool names, sample inputs and support addresses developers do want to read.
 *
 * Phones: libphonenumber-js is the maintained authority on what a number is, but its own
 * text search (`findPhoneNumbersInText`) took ~77 ms over 8,000 characters on the benchmark VM,
 * far too slow for a request. So a cheap regex finds candidates — an international `+`
 * number, or a North American 3-3-4 number with separators — and libphonenumber-js judges
 * each candidate (`isValidPhoneNumber`, a few hundred µs, only for candidates). Dates, times,
 * ids, versions and IP addresses never have those shapes; a national number in another
 * country's format without `+` (030 1234567) is not recognised: that is the price of no false
 * positives on numbers in logs.
 */
export const PERSONAL_DATA_PATTERNS: readonly SecretPattern[] = [
  // Bounded parts keep the scan linear on long runs of word characters.
  {
    kind: 'email',
    pattern:
      /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}\b/g,
  },
  {
    kind: 'phone',
    pattern: /(?<![\w+.-])(?:\+\d[\d ().-]{6,20}\d|\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4})(?![\w.-]*\d)/g,
    accept: (candidate) =>
      candidate.startsWith('+')
        ? isValidPhoneNumber(candidate)
        : isValidPhoneNumber(candidate, 'US'),
  },
];

/** `@` for an email, three digits in a row for a phone. */
export const PERSONAL_DATA_PREFILTER = /@|\d{3}/;
