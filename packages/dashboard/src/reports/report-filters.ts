import { OUTCOMES, type Outcome } from '@debrief/protocol';
import { navigate, useLocation, withQuery } from '../router';
import type { DateRange } from './date-range-fields';

/** The reports view's state, all of it in the URL so a view can be reloaded and shared. */
export interface ReportFilters extends DateRange {
  outcome: Outcome | null;
  tool_name: string | null;
  source: string | null;
  /** Only the reports of this issue (an issue page links here). */
  issue_id: string | null;
  page: number;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const ID = /^[0-9a-f]{32}$/;

/** `from`/`to` of a view's URL: a YYYY-MM-DD day, or null (absent or not a day). */
export function dateParam(query: URLSearchParams, name: 'from' | 'to'): string | null {
  const value = query.get(name);
  return value && DATE.test(value) ? value : null;
}

function parseFilters(query: URLSearchParams): ReportFilters {
  const outcome = query.get('outcome');
  const page = Number(query.get('page') ?? '1');
  return {
    outcome: OUTCOMES.includes(outcome as Outcome) ? (outcome as Outcome) : null,
    tool_name: query.get('tool_name') || null,
    source: query.get('source') || null,
    from: dateParam(query, 'from'),
    to: dateParam(query, 'to'),
    issue_id: ID.test(query.get('issue_id') ?? '') ? query.get('issue_id') : null,
    page: Number.isSafeInteger(page) && page >= 1 ? page : 1,
  };
}

export function useReportFilters(): [
  ReportFilters,
  (change: Partial<ReportFilters>, options?: { replace?: boolean }) => void,
] {
  const location = useLocation();
  const filters = parseFilters(location.query);
  const update = (change: Partial<ReportFilters>, options: { replace?: boolean } = {}) => {
    // Any filter change starts again at page 1, unless the change is the page itself.
    const next = { ...filters, page: 1, ...change };
    navigate(
      withQuery(location.path, {
        outcome: next.outcome,
        tool_name: next.tool_name,
        source: next.source,
        from: next.from,
        to: next.to,
        issue_id: next.issue_id,
        page: next.page > 1 ? next.page : null,
      }),
      options,
    );
  };
  return [filters, update];
}

export function hasNarrowingFilters(filters: ReportFilters): boolean {
  return Boolean(
    filters.outcome ||
      filters.tool_name ||
      filters.source ||
      filters.from ||
      filters.to ||
      filters.issue_id,
  );
}

/** Query string for the API: the same names as the URL, plus paging. */
export function apiQuery(
  filters: ReportFilters,
  names: (keyof ReportFilters)[],
  extra: Record<string, string | number> = {},
): string {
  const query = new URLSearchParams();
  for (const name of names) {
    const value = filters[name];
    if (value !== null && value !== undefined && value !== '') query.set(name, String(value));
  }
  for (const [name, value] of Object.entries(extra)) query.set(name, String(value));
  const text = query.toString();
  return text ? `?${text}` : '';
}

/** Does a live report belong in the current view, ignoring the outcome (the tiles' facet)? */
export function matchesFacetFilters(
  report: {
    tool_name: string | null;
    source: string | null;
    created_at: string;
    issue_id?: string | null;
  },
  filters: ReportFilters,
): boolean {
  // A live report is not grouped yet (its issue comes a moment later): the issue's view
  // reloads until it is (use-awaited-grouping.ts).
  if (filters.issue_id && report.issue_id !== filters.issue_id) return false;
  if (filters.tool_name && report.tool_name !== filters.tool_name) return false;
  if (filters.source && report.source !== filters.source) return false;
  const day = report.created_at.slice(0, 10);
  if (filters.from && day < filters.from) return false;
  if (filters.to && day > filters.to) return false;
  return true;
}
