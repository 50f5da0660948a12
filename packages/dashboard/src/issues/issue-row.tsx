import { ISSUE_TREND_DAYS, type IssueListItem } from '@debrief/protocol';
import { DailyBars, lastDays } from '../charts/daily-bars';
import { Link } from '../router';
import { formatCount, OUTCOME_LABELS } from '../ui/format';
import { RelativeTime } from '../ui/relative-time';

/** One issue in the list, with the sparkline of its last days that the list carries. */
export function IssueRow({
  projectId,
  issue,
  current,
  checked,
  isNew,
  onCheck,
  onFocusRow,
}: {
  projectId: string;
  issue: IssueListItem;
  current: boolean;
  checked: boolean;
  isNew: boolean;
  onCheck(checked: boolean): void;
  onFocusRow(): void;
}) {
  const href = `/projects/${projectId}/issues/${issue.id}`;
  const titleId = `issue-title-${issue.id}`;
  return (
    <li
      className={`issue-row${current ? ' issue-row-current' : ''}${checked ? ' issue-row-checked' : ''}`}
      data-issue-id={issue.id}
      aria-current={current ? 'true' : undefined}
      onFocus={onFocusRow}
    >
      <input
        type="checkbox"
        className="issue-check"
        checked={checked}
        aria-labelledby={titleId}
        onChange={(event) => onCheck(event.target.checked)}
      />
      <div className="issue-main">
        <div className="issue-line">
          <Link to={href} id={titleId} className="issue-title">
            {issue.title}
          </Link>
          {isNew && <span className="pill pill-new">New</span>}
          {issue.regressed_at && issue.status === 'open' && (
            <span className="pill pill-regressed" title="A report arrived after it was resolved">
              Regressed
            </span>
          )}
          {issue.status !== 'open' && (
            <span className="pill">{issue.status === 'resolved' ? 'Resolved' : 'Ignored'}</span>
          )}
          {issue.muted && (
            <span className="pill pill-muted" title="Its notifications are muted: see its page">
              Muted
            </span>
          )}
          {issue.possible_duplicate_of && (
            <Link
              to={`/projects/${projectId}/issues/${issue.possible_duplicate_of}`}
              className="pill pill-duplicate"
              title="Its reports are very like those of a larger issue: open it to merge or keep apart"
            >
              Possible duplicate
            </Link>
          )}
        </div>
        <div className="issue-meta muted small">
          <span className={`badge badge-${issue.outcome}`}>{OUTCOME_LABELS[issue.outcome]}</span>
          <span className="issue-tool">{issue.tool_name ?? 'no tool named'}</span>
          <span>
            first <RelativeTime iso={issue.first_seen} />
          </span>
          <span>
            last <RelativeTime iso={issue.last_seen} />
          </span>
        </div>
      </div>
      <IssueTrend issue={issue} />
      <span className="issue-count">
        {issue.range_count !== null && (
          <span className="issue-range-count">
            <strong>{formatCount(issue.range_count)}</strong>
            <span className="muted small"> in range</span>
          </span>
        )}
        <span>
          <strong>{formatCount(issue.report_count)}</strong>
          <span className="muted small">
            {' '}
            {issue.report_count === 1 ? 'report' : 'reports'}
            {issue.range_count !== null && ' in all'}
          </span>
        </span>
      </span>
    </li>
  );
}

function IssueTrend({ issue }: { issue: IssueListItem }) {
  const days = lastDays(issue.trend, ISSUE_TREND_DAYS);
  const total = days.reduce((sum, entry) => sum + entry.count, 0);
  return (
    <span className="issue-trend">
      <DailyBars
        days={days}
        width={84}
        height={22}
        className="sparkline"
        label={`${formatCount(total)} in the last ${ISSUE_TREND_DAYS} days`}
      />
    </span>
  );
}
