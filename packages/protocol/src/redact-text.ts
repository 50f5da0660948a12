import type { SecretPattern } from './secret-patterns.js';

interface Span {
  start: number;
  end: number;
  kind: string;
}

/**
 * Replaces every match of the patterns in `text` with `[REDACTED:<kind>]`. All patterns run on
 * the original text; where matches overlap, the pattern listed first wins and the others are
 * dropped (a JWT after `Bearer ` is one `jwt`, not also a `bearer_token`). Returns the text
 * unchanged (the same string) and 0 when nothing matched.
 */
export function redactText(
  text: string,
  patterns: readonly SecretPattern[],
): { text: string; redactions: number } {
  const chosen: Span[] = [];
  for (const { kind, pattern, accept, group } of patterns) {
    for (const match of text.matchAll(pattern)) {
      const span = group === undefined ? undefined : match.indices?.[group];
      const value = group === undefined ? match[0] : match[group];
      if (!value || (accept && !accept(value))) continue;
      const start = span ? span[0] : match.index;
      const end = start + value.length;
      if (chosen.some((other) => start < other.end && other.start < end)) continue;
      chosen.push({ start, end, kind });
    }
  }
  if (chosen.length === 0) return { text, redactions: 0 };
  chosen.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const span of chosen) {
    out += `${text.slice(at, span.start)}[REDACTED:${span.kind}]`;
    at = span.end;
  }
  return { text: out + text.slice(at), redactions: chosen.length };
}
