import type { IssueList, IssueStatus, ReportList } from '@debrief/protocol';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ConsoleProject, ToolsSummary } from '../api/console.types';
import { useAction } from '../api/use-action';
import { useResource } from '../api/use-resource';
import { DateRangeFields } from '../reports/date-range-fields';
import { FirstReportGuide } from '../reports/first-report-guide';
import { LiveIndicator } from '../reports/live-indicator';
import { useLiveReports } from '../reports/use-live-reports';
import { useThrottledRefresh } from '../reports/use-throttled-refresh';
import { navigate, withQuery } from '../router';
import { useSession } from '../session-context';
import { formatCount, formatDay } from '../ui/format';
import { ErrorNotice, Loading } from '../ui/notice';
import { Pager } from '../ui/pager';
import { STATUS_TABS, useIssueFilters } from './issue-filters';
import { IssueRow } from './issue-row';
import { IssuesToolbar } from './issues-toolbar';
import { isNewSince, useLastVisit } from './last-visit';
import { useListShortcuts } from './use-list-shortcuts';

const PAGE_SIZE = 25;
const DONE_LABELS: Record<IssueStatus, string> = {
  open: 'Reopened',
  resolved: 'Resolved',
  ignored: 'Ignored',
};
/** Live changes reload the list at most this often, and once after the last. */
const REFRESH = { intervalMs: 1500, settleMs: 300 };

/** A project's front page: its issues, worst first, to triage. */
export function IssuesPage({ project }: { project: ConsoleProject }) {
  const { api, session, refreshSession } = useSession();
  const [filters, setFilters] = useIssueFilters();
  const base = `/v1/dashboard/${project.id}`;
  // A range that ends before it starts matches nothing: said in the page, never asked.
  const rangeInvalid = Boolean(filters.from && filters.to && filters.from > filters.to);
  const listPath = `${base}/issues${withQuery('', {
    status: filters.status,
    kind: filters.kind === 'all' ? null : filters.kind,
    outcome: filters.outcome,
    tool_name: filters.tool_name,
    q: filters.q,
    sort: filters.sort,
    page: filters.page,
    limit: PAGE_SIZE,
    from: filters.from,
    to: filters.to,
  })}`;
  const ranged = Boolean(filters.from || filters.to);
  // "resolved ", "ignored ", "open " or nothing (all), for the empty list's sentence.
  const statusWord = filters.status === 'all' ? '' : `${filters.status} `;
  const list = useResource(rangeInvalid ? null : listPath, () => api.get<IssueList>(listPath));
  const lastVisit = useLastVisit(session.account.id, project.id);

  // Nothing listed at all: is the project new (show how to send a report) or just triaged?
  const emptyView = !rangeInvalid && list.data !== undefined && list.data.pagination.total === 0;
  const anyReports = useResource(emptyView ? `${base}/reports?limit=1` : null, () =>
    api.get<ReportList>(`${base}/reports?limit=1`),
  );

  // The tool filter's choices: the 100 busiest tools, as the Reports page offers them.
  const toolsPath = `/v1/console/projects/${project.id}/tools?limit=100`;
  const tools = useResource(toolsPath, () => api.get<ToolsSummary>(toolsPath));
  const toolNames = (tools.data?.tools ?? [])
    .map((tool) => tool.tool_name)
    .filter((name): name is string => name !== null);
  // The header's "reports this month" moves with the reports, as on the Reports page, and so
  // do the tools a report may bring.
  const refresh = useCallback(() => {
    list.reload();
    tools.reload();
    refreshSession();
  }, [list.reload, tools.reload, refreshSession]);
  const scheduleRefresh = useThrottledRefresh(refresh, REFRESH);
  const status = useLiveReports(project.id, scheduleRefresh, list.reload, scheduleRefresh);

  const searchRef = useRef<HTMLInputElement>(null);
  const [cursor, setCursor] = useState(0);
  const [checked, setChecked] = useState<ReadonlySet<string>>(new Set());
  const action = useAction();
  const [done, setDone] = useState('');
  // biome-ignore lint/correctness/useExhaustiveDependencies: another tab or page starts over
  useEffect(() => {
    setChecked(new Set());
    setCursor(0);
  }, [listPath]);

  const visible = rangeInvalid ? [] : (list.data?.issues ?? []);
  const currentIndex = Math.min(cursor, Math.max(0, visible.length - 1));
  const current = visible[currentIndex];

  const setStatus = useCallback(
    async (ids: string[], next: IssueStatus) => {
      if (ids.length === 0) return;
      const ok = await action.run(async () => {
        await Promise.all(ids.map((id) => api.patch(`${base}/issues/${id}`, { status: next })));
      });
      if (ok) {
        setChecked(new Set());
        // Said aloud too: with `r` or `i` the row just disappears from the list.
        const count = ids.length === 1 ? '1 issue' : `${formatCount(ids.length)} issues`;
        setDone(`${DONE_LABELS[next]} ${count}.`);
      }
      list.reload();
    },
    [action.run, api, base, list.reload],
  );
  const targets = () => (checked.size > 0 ? [...checked] : current ? [current.id] : []);
  const focusRow = (index: number) =>
    document.getElementById(`issue-title-${visible[index]?.id}`)?.focus();

  useListShortcuts({
    move(step) {
      if (visible.length === 0) return;
      const next = Math.min(visible.length - 1, Math.max(0, currentIndex + step));
      setCursor(next);
      focusRow(next);
    },
    open() {
      if (current) navigate(`/projects/${project.id}/issues/${current.id}`);
    },
    resolve: () => void setStatus(targets(), 'resolved'),
    ignore: () => void setStatus(targets(), 'ignored'),
    toggle() {
      if (current) toggleChecked(current.id, !checked.has(current.id));
    },
    search: () => searchRef.current?.focus(),
  });

  function toggleChecked(id: string, on: boolean) {
    setChecked((ids) => {
      const next = new Set(ids);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  }

  const data = list.data;
  const pageCount = data ? Math.max(1, Math.ceil(data.pagination.total / PAGE_SIZE)) : 1;
  const allChecked = visible.length > 0 && visible.every((issue) => checked.has(issue.id));
  const selected = [...checked];

  const header = (
    <div className="section-bar">
      <h2 className="section-title">Issues</h2>
      <LiveIndicator status={status} />
    </div>
  );
  // A new project: how to send its first report, as the reports view shows it.
  const neverReported =
    emptyView && filters.status === 'open' && anyReports.data?.stats.total === 0;
  if (neverReported) {
    return (
      <div className="issues-page">
        {header}
        <FirstReportGuide projectId={project.id} />
      </div>
    );
  }

  return (
    <div className="issues-page">
      {header}
      <nav className="status-tabs" aria-label="Issue status">
        {STATUS_TABS.map((tab) => (
          <button
            key={tab.id}
            type="button"
            className="status-tab"
            aria-pressed={filters.status === tab.id}
            onClick={() => setFilters({ status: tab.id })}
          >
            {tab.label}
          </button>
        ))}
      </nav>
      <IssuesToolbar
        tools={toolNames}
        filters={filters}
        ranged={ranged}
        searchRef={searchRef}
        onChange={setFilters}
      />
      {/* Every control applies at once: there is nothing to submit. */}
      <form
        className="filters issues-range"
        aria-label="Issue date range"
        onSubmit={(event) => event.preventDefault()}
      >
        <DateRangeFields range={filters} onChange={setFilters} />
      </form>
      {rangeInvalid && (
        <div className="notice notice-error" role="alert">
          <p>
            The start date ({formatDay(filters.from ?? '')}) is after the end date (
            {formatDay(filters.to ?? '')}). Choose a From date on or before the To date.
          </p>
        </div>
      )}
      <div className="bulk-bar">
        <label className="bulk-all">
          <input
            type="checkbox"
            checked={allChecked}
            disabled={visible.length === 0}
            onChange={(event) =>
              setChecked(event.target.checked ? new Set(visible.map((i) => i.id)) : new Set())
            }
          />
          Select all shown
        </label>
        <span className="muted small" aria-live="polite">
          {selected.length > 0 ? `${formatCount(selected.length)} selected` : done}
        </span>
        {filters.status !== 'resolved' && (
          <button
            type="button"
            className="button button-small"
            disabled={selected.length === 0 || action.busy}
            onClick={() => void setStatus(selected, 'resolved')}
          >
            Resolve selected
          </button>
        )}
        {filters.status !== 'ignored' && (
          <button
            type="button"
            className="button button-small"
            disabled={selected.length === 0 || action.busy}
            onClick={() => void setStatus(selected, 'ignored')}
          >
            Ignore selected
          </button>
        )}
        {filters.status !== 'open' && (
          <button
            type="button"
            className="button button-small"
            disabled={selected.length === 0 || action.busy}
            onClick={() => void setStatus(selected, 'open')}
          >
            Reopen selected
          </button>
        )}
      </div>
      <ErrorNotice error={action.error} />
      <ErrorNotice error={list.error} onRetry={list.reload} />
      {!data && !list.error && !rangeInvalid && <Loading />}
      {data && !rangeInvalid && visible.length === 0 && (
        <div className="empty card">
          <p>
            {filters.q && data.pagination.total === 0
              ? `No ${statusWord}issue has “${filters.q}” in its title.`
              : data.pagination.total > 0
                ? 'This page is past the end of the list.'
                : ranged
                  ? `No ${statusWord}issue has reports in this range.`
                  : filters.status === 'open' && filters.kind === 'problem'
                    ? 'No open problems. Requests and successes are under their own tabs above.'
                    : filters.status === 'open'
                      ? 'No open issues. New reports will open them here.'
                      : `No ${statusWord}issues.`}
          </p>
        </div>
      )}
      {data && visible.length > 0 && (
        <ol className="issue-list" aria-label="Issues">
          {visible.map((issue, index) => (
            <IssueRow
              key={issue.id}
              projectId={project.id}
              issue={issue}
              current={index === currentIndex}
              checked={checked.has(issue.id)}
              isNew={isNewSince(issue.first_seen, lastVisit)}
              onCheck={(on) => toggleChecked(issue.id, on)}
              onFocusRow={() => setCursor(index)}
            />
          ))}
        </ol>
      )}
      <Pager
        page={filters.page}
        pageCount={data ? pageCount : 0}
        onPage={(page) => setFilters({ page })}
      />
      <p className="shortcuts-hint muted small">
        Keys: <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>Enter</kbd> open · <kbd>x</kbd> select ·{' '}
        <kbd>r</kbd> resolve · <kbd>i</kbd> ignore · <kbd>/</kbd> search
      </p>
    </div>
  );
}
