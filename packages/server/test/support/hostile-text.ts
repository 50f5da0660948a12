/**
 * Report text shaped to make naive patterns backtrack, shared by the tests that check it is
 * handled boundedly and by `npm run bench:text`, which times it.
 */

/** The longest `details` a report may carry. */
export const DETAILS_MAX_LENGTH = 10_000;

/** Shapes that make naive patterns backtrack: long runs of one class, alternations, separators. */
export const HOSTILE_DETAILS: Record<string, string> = {
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

/** Long text that hits the redaction prefilter everywhere: tokens, addresses, key prefixes. */
export const SECRETISH_DETAILS =
  `Bearer ${'a'.repeat(5000)} ${'x@'.repeat(1000)} ${'sk-'.repeat(600)}`.slice(0, 10_000);
