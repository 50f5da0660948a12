import type { IssueStatus, ListIssuesQuery } from '@debrief/protocol';
import type { DateRange } from '../reports/date-range-fields';
import { dateParam } from '../reports/report-filters';
import { navigate, useLocation, withQuery } from '../router';

export type StatusTab = IssueStatus | 'all';
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
  sort: IssueSort;
  page: number;
}

export const STATUS_TABS: { id: StatusTab; label: string }[] = [
  { id: 'open', label: 'Open' },
  { id: 'resolved', label: 'Resolved' },
  { id: 'ignored', label: 'Ignored' },
  { id: 'all', label: 'All' },
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
  return {
    status: STATUS_TABS.some((tab) => tab.id === status) ? (status as StatusTab) : 'open',
    sort: ISSUE_SORTS.includes(sort as IssueSort) ? (sort as IssueSort) : DEFAULT_SORT,
    page: Number.isSafeInteger(page) && page >= 1 ? page : 1,
    from: dateParam(query, 'from'),
    to: dateParam(query, 'to'),
  };
}

export function useIssueFilters(): [IssueFilters, (change: Partial<IssueFilters>) => void] {
  const location = useLocation();
  const filters = parse(location.query);
  const update = (change: Partial<IssueFilters>) => {
    const next = { ...filters, page: 1, ...change };
    navigate(
      withQuery(location.path, {
        status: next.status === 'open' ? null : next.status,
        sort: next.sort === DEFAULT_SORT ? null : next.sort,
        page: next.page > 1 ? next.page : null,
        from: next.from,
        to: next.to,
      }),
    );
  };
  return [filters, update];
}
