import type { Report, ReportList } from '@debrief/protocol';
import { useCallback, useEffect, useState } from 'react';
import type {
  ConsoleProject,
  SourcesSummary,
  Timeseries,
  ToolRates,
  ToolsSummary,
} from '../api/console.types';
import { useResource } from '../api/use-resource';
import { OutcomesChart } from '../charts/outcomes-chart';
import { ToolsTable } from '../charts/tools-table';
import { VersionCompare } from '../charts/version-compare';
import { useListShortcuts } from '../issues/use-list-shortcuts';
import { Link, navigate } from '../router';
import { useSession } from '../session-context';
import { formatCount, formatDay } from '../ui/format';
import { ErrorNotice, Loading } from '../ui/notice';
import { Pager } from '../ui/pager';
import { FilterBar } from './filter-bar';
import { FirstReportGuide } from './first-report-guide';
import { LiveIndicator } from './live-indicator';
import { OutcomeTiles } from './outcome-tiles';
import {
  apiQuery,
  hasNarrowingFilters,
  matchesFacetFilters,
  useReportFilters,
} from './report-filters';
import { ReportItem } from './report-item';
import { useAwaitedGrouping } from './use-awaited-grouping';
import { useLiveReports } from './use-live-reports';
import { useThrottledRefresh } from './use-throttled-refresh';

const PAGE_SIZE = 20;
/**
 * While reports stream in, the panels the list cannot update by itself (chart, tools table,
 * filter choices, usage meter) are fetched again at most this often, and once after the last.
 */
const REFRESH = { intervalMs: 2000, settleMs: 500 };

export function ReportsPage({ project }: { project: ConsoleProject }) {
  const { api, refreshSession } = useSession();
  const [filters, setFilters] = useReportFilters();
  const base = `/v1/dashboard/${project.id}`;
  const consoleBase = `/v1/console/projects/${project.id}`;

  // A range that ends before it starts matches nothing: say so once, in the filter bar, and
  // ask the server nothing (each panel would otherwise show the API's 400 on its own).
  const rangeInvalid = Boolean(filters.from && filters.to && filters.from > filters.to);
  const [insightsOpen, setInsightsOpen] = useState(false);

  const listQuery = apiQuery(
    filters,
    ['outcome', 'tool_name', 'source', 'from', 'to', 'issue_id', 'page'],
    { limit: PAGE_SIZE },
  );
  const reports = useResource(rangeInvalid ? null : `${base}/reports${listQuery}`, () =>
    api.get<ReportList>(`${base}/reports${listQuery}`),
  );
  const seriesQuery = apiQuery(filters, ['from', 'to', 'tool_name', 'source']);
  const series = useResource(rangeInvalid ? null : `${consoleBase}/timeseries${seriesQuery}`, () =>
    api.get<Timeseries>(`${consoleBase}/timeseries${seriesQuery}`),
  );
  // The worst 100 tools: the most the endpoint pages at once (a project may hold 1,000).
  const toolsQuery = apiQuery(filters, ['from', 'to', 'source'], { limit: 100 });
  const tools = useResource(rangeInvalid ? null : `${consoleBase}/tools${toolsQuery}`, () =>
    api.get<ToolsSummary>(`${consoleBase}/tools${toolsQuery}`),
  );
  // Calls and error rates per tool, where the project's hosts send call counts.
  const ratesQuery = apiQuery(filters, ['from', 'to'], { limit: 100 });
  const rates = useResource(rangeInvalid ? null : `${base}/tools${ratesQuery}`, () =>
    api.get<ToolRates>(`${base}/tools${ratesQuery}`),
  );
  const versionsQuery = filters.tool_name
    ? apiQuery(filters, ['from', 'to', 'tool_name'], { by: 'server_version' })
    : null;
  const versions = useResource(
    rangeInvalid || versionsQuery === null ? null : `${base}/tools${versionsQuery}`,
    () => api.get<ToolRates>(`${base}/tools${versionsQuery}`),
  );
  const sourcesQuery = apiQuery(filters, ['from', 'to', 'tool_name']);
  const sources = useResource(rangeInvalid ? null : `${consoleBase}/sources${sourcesQuery}`, () =>
    api.get<SourcesSummary>(`${consoleBase}/sources${sourcesQuery}`),
  );

  // Reports that arrived live, highlighted briefly.
  const [fresh, setFresh] = useState<ReadonlySet<string>>(new Set());
  // Reports that arrived for page 1 while an older page is open.
  const [newer, setNewer] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new list query starts the count over
  useEffect(() => setNewer(0), [listQuery]);
  const reloadPanels = useCallback(() => {
    series.reload();
    tools.reload();
    rates.reload();
    versions.reload();
    sources.reload();
    refreshSession();
  }, [series.reload, tools.reload, rates.reload, versions.reload, sources.reload, refreshSession]);
  const scheduleRefresh = useThrottledRefresh(reloadPanels, REFRESH);
  // After a gap in the stream every panel may be stale or failed, not only the list.
  const resync = useCallback(() => {
    reports.reload();
    reloadPanels();
  }, [reports.reload, reloadPanels]);

  const awaitGrouping = useAwaitedGrouping(reports.data, reports.reload);

  const onReport = useCallback(
    (report: Report) => {
      scheduleRefresh();
      // Filtered by an issue: a report that would be listed once grouped is waited for.
      const inIssueView = filters.issue_id !== null && filters.page === 1;
      if (
        inIssueView &&
        (!filters.outcome || filters.outcome === report.outcome) &&
        matchesFacetFilters({ ...report, issue_id: filters.issue_id }, filters)
      ) {
        awaitGrouping(report);
      }
      if (!matchesFacetFilters(report, filters)) return;
      reports.mutate((current) => {
        if (!current || current.reports.some((item) => item.id === report.id)) return current;
        const matches = !filters.outcome || filters.outcome === report.outcome;
        const stats = {
          ...current.stats,
          total: current.stats.total + 1,
          [report.outcome]: current.stats[report.outcome] + 1,
        };
        if (!matches) return { ...current, stats };
        const list =
          filters.page === 1
            ? [report, ...current.reports].slice(0, current.pagination.limit)
            : current.reports;
        return {
          ...current,
          stats,
          reports: list,
          pagination: { ...current.pagination, total: current.pagination.total + 1 },
        };
      });
      setFresh((ids) => new Set(ids).add(report.id));
      if (filters.page > 1 && (!filters.outcome || filters.outcome === report.outcome)) {
        setNewer((count) => count + 1);
      }
    },
    [filters, reports.mutate, scheduleRefresh, awaitGrouping],
  );
  const status = useLiveReports(project.id, onReport, resync);

  // The Issues view's keyboard, for reports: j/k move, Enter opens the report's issue, / filters.
  const [cursor, setCursor] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: another page or filter starts over
  useEffect(() => setCursor(0), [listQuery]);
  useListShortcuts({
    move(step) {
      const shown = reports.data?.reports ?? [];
      if (shown.length === 0) return;
      const inList = document.activeElement?.closest('[data-report-id]');
      const index = Math.min(shown.length - 1, cursor);
      const next = inList ? Math.min(shown.length - 1, Math.max(0, index + step)) : index;
      setCursor(next);
      document.querySelector<HTMLElement>(`[data-report-id="${shown[next]?.id}"]`)?.focus();
    },
    open() {
      const report = reports.data?.reports[cursor];
      if (report?.issue_id) navigate(`/projects/${project.id}/issues/${report.issue_id}`);
    },
    search() {
      document.querySelector<HTMLElement>('form.filters select')?.focus();
    },
  });

  const list = reports.data;
  const pageCount = list
    ? Math.max(1, Math.ceil(list.pagination.total / list.pagination.limit))
    : 1;
  const toolNames = (tools.data?.tools ?? [])
    .map((tool) => tool.tool_name)
    .filter((name): name is string => name !== null)
    .sort((a, b) => a.localeCompare(b));
  // Hosts may send call counts before any agent reports: then the tools table shows them.
  const counted = rates.data?.tools.some((tool) => tool.calls !== null) ?? false;
  const neverReported =
    list !== undefined && list.stats.total === 0 && !hasNarrowingFilters(filters) && !counted;

  return (
    <div className="reports-page">
      <div className="section-bar">
        <h2 className="section-title">Reports</h2>
        <LiveIndicator status={status} />
      </div>
      {filters.issue_id && (
        <p className="issue-filter" data-testid="issue-filter">
          Only the reports of{' '}
          <Link to={`/projects/${project.id}/issues/${filters.issue_id}`}>one issue</Link>.{' '}
          <button
            type="button"
            className="link-button"
            onClick={() => setFilters({ issue_id: null })}
          >
            Show every report
          </button>
        </p>
      )}
      <OutcomeTiles
        stats={rangeInvalid ? undefined : list?.stats}
        unavailable={!list && Boolean(reports.error)}
        selected={filters.outcome}
        onSelect={(outcome) => setFilters({ outcome })}
      />
      <FilterBar
        filters={filters}
        tools={toolNames}
        sources={sources.data}
        onChange={(change) => setFilters(change)}
      />

      {rangeInvalid ? (
        <div className="notice notice-error" role="alert">
          <p>
            The start date ({formatDay(filters.from ?? '')}) is after the end date (
            {formatDay(filters.to ?? '')}). Choose a From date on or before the To date.
          </p>
        </div>
      ) : neverReported ? (
        <FirstReportGuide projectId={project.id} />
      ) : (
        <>
          {/* On a phone the list comes first; the chart and tool table wait behind this. */}
          <button
            type="button"
            className="button insights-toggle"
            aria-expanded={insightsOpen}
            aria-controls="insights"
            onClick={() => setInsightsOpen((open) => !open)}
          >
            Chart and tools
            <span className="insights-toggle-mark" aria-hidden="true">
              {insightsOpen ? '▴' : '▾'}
            </span>
          </button>
          <div
            id="insights"
            className={[
              'insights',
              insightsOpen ? '' : 'insights-closed',
              // Calls, error rate and reports per 1,000 calls make the tools table too wide to share a row.
              counted ? 'insights-stacked' : '',
            ]
              .filter(Boolean)
              .join(' ')}
          >
            <section className="card" aria-labelledby="chart-title">
              <h3 id="chart-title" className="card-title">
                Outcomes per day
                <span className="muted small">
                  {' '}
                  {filters.from || filters.to ? '(selected range, UTC)' : '(last 14 days, UTC)'}
                </span>
              </h3>
              <ErrorNotice error={series.error} onRetry={series.reload} />
              {series.data ? (
                <OutcomesChart days={series.data.days} />
              ) : (
                !series.error && <div className="chart-placeholder" />
              )}
            </section>
            <section className="card" aria-labelledby="tools-title">
              <h3 id="tools-title" className="card-title">
                By tool
                <span className="muted small">
                  worst success rate first,{' '}
                  {filters.from || filters.to ? 'selected range' : 'all time'}
                </span>
              </h3>
              <ErrorNotice error={tools.error} onRetry={tools.reload} />
              {tools.data ? (
                <>
                  <ToolsTable
                    tools={tools.data.tools}
                    rates={rates.data?.tools}
                    selected={filters.tool_name}
                    onSelect={(tool_name) => setFilters({ tool_name })}
                  />
                  {tools.data.pagination.total > tools.data.tools.length && (
                    <p className="muted small" data-testid="tools-truncated">
                      The {tools.data.tools.length} worst of{' '}
                      {formatCount(tools.data.pagination.total)} tools.
                    </p>
                  )}
                  {filters.tool_name && versions.data?.versions && (
                    <VersionCompare tool={filters.tool_name} versions={versions.data.versions} />
                  )}
                </>
              ) : (
                !tools.error && <Loading />
              )}
            </section>
          </div>

          <section aria-labelledby="list-title" className="report-list-section">
            <div className="list-bar">
              <h3 id="list-title" className="card-title">
                {list ? `${formatCount(list.pagination.total)} reports` : 'Reports'}
                <span className="muted small"> newest first</span>
              </h3>
              {reports.loading && list && <span className="muted small">Updating…</span>}
              {newer > 0 && !reports.loading && (
                <button
                  type="button"
                  className="button button-small"
                  onClick={() => setFilters({ page: 1 })}
                >
                  {newer === 1 ? '1 new report' : `${formatCount(newer)} new reports`} · see newest
                </button>
              )}
            </div>
            <ErrorNotice error={reports.error} onRetry={reports.reload} />
            {!list && !reports.error && <Loading />}
            {list && list.reports.length === 0 && (
              <div className="empty card">
                <p>
                  {list.pagination.total > 0
                    ? 'This page is past the end of the list.'
                    : 'No reports match these filters.'}
                </p>
                <button
                  type="button"
                  className="button"
                  onClick={() =>
                    list.pagination.total > 0
                      ? setFilters({ page: 1 })
                      : setFilters({
                          outcome: null,
                          tool_name: null,
                          source: null,
                          from: null,
                          to: null,
                          issue_id: null,
                        })
                  }
                >
                  {list.pagination.total > 0 ? 'Back to the first page' : 'Clear filters'}
                </button>
              </div>
            )}
            {list && list.reports.length > 0 && (
              <ol className="report-list" aria-label="Reports, newest first">
                {list.reports.map((report) => (
                  <ReportItem key={report.id} report={report} fresh={fresh.has(report.id)} />
                ))}
              </ol>
            )}
            <Pager
              page={filters.page}
              pageCount={list ? pageCount : 0}
              onPage={(page) => setFilters({ page })}
              previous="Newer"
              next="Older"
            />
            <p className="shortcuts-hint muted small">
              Keys: <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>Enter</kbd> open its issue · <kbd>/</kbd>{' '}
              filter
            </p>
          </section>
        </>
      )}
    </div>
  );
}
