import {
  type IssueKind,
  type IssueStatus,
  type ListIssuesQuery,
  OUTCOMES,
  type Outcome,
} from '@debrief/protocol';
import type { DateRange } from '../reports/date-range-fields';
import { dateParam } from '../reports/report-filters';
import { navigate, useLocation, withQuery } from '../router';

export type StatusTab = IssueStatus | 'all';
export type KindTab = IssueKind | 'all';
export type IssueSort = ListIssuesQuery['sort'];
// Spelled out (type-checked against the protocol) so no zod schema module reaches the bundle.
const ISSUE_SORTS: IssueSort[] = ['count', 'last_seen', 'first_seen'];
export const SORT_LABELS: Record<IssueSort, string> = {
  count: 'Most reports',
  last_seen: 'Last seen',
  first_seen: 'Newest',
};

/**
 * The Issues view's state, in the URL like the reports view's, and its date range read the same
 * way (`from`/`to`, UTC days; none = all time, the default).
 */
export interface IssueFilters extends DateRange {
  status: StatusTab;
  /** `problem` by default: the list is the short list of what went wrong. */
  kind: KindTab;
  outcome: Outcome | null;
  tool_name: string | null;
  /** Title search, through the API over every issue of the project. */
  q: string;
  sort: IssueSort;
  page: number;
}

export const STATUS_TABS: { id: StatusTab; label: string }[] = [
  { id: 'open', label: 'Open' },
  { id: 'resolved', label: 'Resolved' },
  { id: 'ignored', label: 'Ignored' },
  { id: 'all', label: 'All' },
];

/** Problems first: requests and successes are one click away, not mixed into the queue. */
export const KIND_TABS: { id: KindTab; label: string }[] = [
  { id: 'problem', label: 'Problems' },
  { id: 'request', label: 'Requests' },
  { id: 'success', label: 'Successes' },
  { id: 'all', label: 'All kinds' },
];

/**
 * "Worst first" is the default: most reports first (`sort=count`), all-time unless a range is
 * picked, then the reports in the range (the list API's `range_count`); the sparkline always
 * shows the last 14 days.
 */
export const DEFAULT_SORT: IssueSort = 'count';

function parse(query: URLSearchParams): IssueFilters {
  const status = query.get('status');
  const sort = query.get('sort');
  const page = Number(query.get('page') ?? '1');
  const kind = query.get('kind');
  const outcome = query.get('outcome');
  return {
    status: STATUS_TABS.some((tab) => tab.id === status) ? (status as StatusTab) : 'open',
    kind: KIND_TABS.some((tab) => tab.id === kind) ? (kind as KindTab) : 'problem',
    outcome: (OUTCOMES as readonly string[]).includes(outcome ?? '') ? (outcome as Outcome) : null,
    tool_name: query.get('tool_name') || null,
    q: query.get('q') ?? '',
    sort: ISSUE_SORTS.includes(sort as IssueSort) ? (sort as IssueSort) : DEFAULT_SORT,
    page: Number.isSafeInteger(page) && page >= 1 ? page : 1,
    from: dateParam(query, 'from'),
    to: dateParam(query, 'to'),
  };
}

export function useIssueFilters(): [
  IssueFilters,
  (change: Partial<IssueFilters>, options?: { replace?: boolean }) => void,
] {
  const location = useLocation();
  const filters = parse(location.query);
  const update = (change: Partial<IssueFilters>, options: { replace?: boolean } = {}) => {
    const next = { ...filters, page: 1, ...change };
    navigate(
      withQuery(location.path, {
        status: next.status === 'open' ? null : next.status,
        kind: next.kind === 'problem' ? null : next.kind,
        outcome: next.outcome,
        tool_name: next.tool_name,
        q: next.q.trim() || null,
        sort: next.sort === DEFAULT_SORT ? null : next.sort,
        page: next.page > 1 ? next.page : null,
        from: next.from,
        to: next.to,
      }),
      options,
    );
  };
  return [filters, update];
}
