import safeRegex from 'safe-regex2';

/**
 * Whether a rule's regular expression is safe to run on every report: no repetition inside a
 * repetition (safe-regex2's star-height check, which catches `(a+)+`), and no repeated group of
 * alternatives (`(a|ab)*`, `(\w|\d)+`), whose alternatives can overlap and backtrack as badly,
 * and which safe-regex2 lets through. The second is a restriction of syntax rather than an
 * analysis: `(?:foo|bar)` unrepeated is fine, and a repeated alternative is rarely what a
 * routing rule needs. With the 200-character cap and details of at most 10,000 characters, a
 * pattern that passes costs a report microseconds.
 */
export function patternProblem(pattern: string): string | null {
  if (!safeRegex(pattern)) return 'may take exponential time (nested repetition)';
  if (hasRepeatedAlternation(pattern))
    return 'may take exponential time (a repeated group of alternatives)';
  return null;
}

/** A group holding `|` at its own level, followed by `*`, `+` or `{`. */
function hasRepeatedAlternation(pattern: string): boolean {
  const alternates: boolean[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
    } else if (c === '[') {
      // A character class: `|` and parentheses inside it are literal.
      for (i++; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i++;
    } else if (c === '(') {
      alternates.push(false);
    } else if (c === '|') {
      if (alternates.length > 0) alternates[alternates.length - 1] = true;
    } else if (c === ')') {
      const alternated = alternates.pop() ?? false;
      const next = pattern[i + 1];
      if (alternated && (next === '*' || next === '+' || next === '{')) return true;
    }
  }
  return false;
}
