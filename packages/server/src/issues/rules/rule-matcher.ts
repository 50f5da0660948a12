import type { GroupingRuleRow } from './grouping-rule.repository.js';

/**
 * A project's rules as the grouper applies them, before the engine: pure, built once per load.
 * Route rules are tried in the order they were created; the first that matches places the report.
 * Never-join rules are checked on whatever issue was chosen (by a route rule, a remembered move
 * or the engine): a report never joins an issue of a tool its own tool is kept apart from.
 */
export interface ProjectRules {
  /** The issue a route rule sends this report to, with the reason shown on the report. */
  route(report: { tool_name: string | null; details: string }): RoutedReport | null;
  /** The never-join rule that keeps these two tools' reports apart, if any. */
  apart(toolA: string | null, toolB: string | null): { name: string } | null;
}

export interface RoutedReport {
  issueId: string;
  reason: string;
}

/** What a report placed by a rule shows as its `issue_reason`. */
export function ruleReason(name: string): string {
  return `rule: ${name}`;
}

interface RouteRule {
  name: string;
  toolName: string | null;
  issueId: string;
  test: (details: string, folded: () => string) => boolean;
}

export const NO_RULES: ProjectRules = { route: () => null, apart: () => null };

/** The rules of one project, in their order. A pattern that no longer compiles is skipped. */
export function compileRules(rows: readonly GroupingRuleRow[]): ProjectRules {
  if (rows.length === 0) return NO_RULES;
  const routes: RouteRule[] = [];
  const apartPairs = new Map<string, string>();
  for (const row of rows) {
    if (row.type === 'never_join' && row.tool_a !== null && row.tool_b !== null) {
      apartPairs.set(pairKey(row.tool_a, row.tool_b), row.name);
    } else if (row.type === 'route' && row.pattern !== null && row.issue_id !== null) {
      const test = patternTest(row.pattern, row.pattern_type ?? 'text');
      if (test)
        routes.push({ name: row.name, toolName: row.tool_name, issueId: row.issue_id, test });
    }
  }
  return {
    route(report) {
      if (routes.length === 0) return null;
      let lowered: string | null = null;
      const folded = () => {
        lowered ??= report.details.toLowerCase();
        return lowered;
      };
      for (const rule of routes) {
        if (rule.toolName !== null && rule.toolName !== report.tool_name) continue;
        if (rule.test(report.details, folded))
          return { issueId: rule.issueId, reason: ruleReason(rule.name) };
      }
      return null;
    },
    apart(toolA, toolB) {
      if (apartPairs.size === 0 || toolA === null || toolB === null || toolA === toolB) return null;
      const name = apartPairs.get(pairKey(toolA, toolB));
      return name === undefined ? null : { name };
    },
  };
}

function pairKey(a: string, b: string): string {
  return a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
}

/**
 * Text: the details contain it, ignoring case. Regex: a JavaScript regular expression, ignoring
 * case, checked when saved (grouping-rule.service.ts: a length cap and safe-regex2).
 */
function patternTest(
  pattern: string,
  type: string,
): ((details: string, folded: () => string) => boolean) | null {
  if (type === 'regex') {
    const re = compilePattern(pattern);
    return re ? (details) => re.test(details) : null;
  }
  const needle = pattern.toLowerCase();
  return (_details, folded) => folded().includes(needle);
}

/** The regular expression of a regex rule, or null when it does not compile. */
export function compilePattern(pattern: string): RegExp | null {
  try {
    return new RegExp(pattern, 'i');
  } catch {
    return null;
  }
}
