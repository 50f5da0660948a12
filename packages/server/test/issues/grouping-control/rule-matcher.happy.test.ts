import { describe, expect, it } from 'vitest';
import type { GroupingRuleRow } from '../../../src/issues/rules/grouping-rule.repository.js';
import { patternProblem } from '../../../src/issues/rules/pattern-safety.js';
import { compileRules, NO_RULES } from '../../../src/issues/rules/rule-matcher.js';

/** The pure matcher the grouper applies before the engine: order, tools, text and regex. */
function rule(fields: Partial<GroupingRuleRow>): GroupingRuleRow {
  return {
    id: 'r',
    project_id: 'p',
    type: 'route',
    name: 'n',
    pattern: null,
    pattern_type: 'text',
    tool_name: null,
    issue_id: null,
    tool_a: null,
    tool_b: null,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    ...fields,
  };
}

describe('grouping rule matcher', () => {
  it('tries route rules in order, ignoring case, on their tool or any', () => {
    const rules = compileRules([
      rule({ name: 'quota on files', pattern: 'QUOTA', tool_name: 'files', issue_id: 'i1' }),
      rule({ name: 'quota anywhere', pattern: 'quota', issue_id: 'i2' }),
      rule({ name: 'codes', pattern: '\\b5\\d\\d\\b', pattern_type: 'regex', issue_id: 'i3' }),
    ]);
    expect(rules.route({ tool_name: 'files', details: 'Quota exceeded' })).toEqual({
      issueId: 'i1',
      reason: 'rule: quota on files',
    });
    expect(rules.route({ tool_name: 'search', details: 'over the quota' })?.issueId).toBe('i2');
    expect(rules.route({ tool_name: null, details: 'got a 503 back' })?.reason).toBe('rule: codes');
    expect(rules.route({ tool_name: null, details: 'got 5030 items' })).toBeNull();
  });

  it('keeps never-join pairs apart either way round, and nothing else', () => {
    const rules = compileRules([
      rule({ type: 'never_join', name: 'v1/v2', tool_a: 'search', tool_b: 'search_v2' }),
    ]);
    expect(rules.apart('search_v2', 'search')).toEqual({ name: 'v1/v2' });
    expect(rules.apart('search', 'search_v2')).toEqual({ name: 'v1/v2' });
    expect(rules.apart('search', 'search')).toBeNull();
    expect(rules.apart('search', null)).toBeNull();
    expect(rules.apart('search', 'fetch')).toBeNull();
  });

  it('skips a pattern that does not compile, and has a shared empty set', () => {
    const rules = compileRules([
      rule({ pattern: '(', pattern_type: 'regex', issue_id: 'i1' }),
      rule({ pattern: '(', issue_id: 'i2' }),
    ]);
    expect(rules.route({ tool_name: null, details: 'a ( b' })?.issueId).toBe('i2');
    expect(compileRules([])).toBe(NO_RULES);
  });
});

describe('rule pattern safety', () => {
  it('refuses nested repetition and repeated alternatives, and nothing a rule needs', () => {
    expect(patternProblem('(a+)+b')).toMatch(/nested repetition/);
    expect(patternProblem('(a|a)*b')).toMatch(/repeated group of alternatives/);
    expect(patternProblem('(?:\\w|\\d){2,}$')).toMatch(/repeated group of alternatives/);
    for (const fine of [
      '429|rate limit',
      '^time(d)? ?out\\b',
      '(?:foo|bar) failed',
      '[(|)]+',
      '\\(a|b\\)+',
    ])
      expect(patternProblem(fine), fine).toBeNull();
  });
});
