import type { IssueList, IssueSummary } from '@debrief/protocol';
import { useState } from 'react';
import { useResource } from '../api/use-resource';
import { withQuery } from '../router';
import { useSession } from '../session-context';
import { formatCount } from '../ui/format';
import { ErrorNotice, Loading } from '../ui/notice';
import { useDebounced } from '../ui/use-debounced';

const CHOICES = 50;

/**
 * Choose another issue of the project (merge into it, move a report to it): the issues seen
 * most recently, or those whose title has the text searched — every issue of the project, asked
 * of the API (`q`), not only those on screen. `allowNew` adds "a new issue" as the first choice
 * (moving a report out).
 */
export function IssuePicker({
  projectId,
  exclude,
  value,
  allowNew = false,
  onChange,
}: {
  projectId: string;
  exclude: string;
  value: string | null;
  allowNew?: boolean;
  onChange(value: string): void;
}) {
  const { api } = useSession();
  const [search, setSearch] = useState('');
  const q = useDebounced(search.trim(), 250);
  const path = withQuery(`/v1/dashboard/${projectId}/issues`, {
    status: 'all',
    sort: 'last_seen',
    limit: CHOICES,
    q,
  });
  const issues = useResource(path, () => api.get<IssueList>(path));
  const choices: IssueSummary[] = (issues.data?.issues ?? []).filter(
    (issue) => issue.id !== exclude,
  );
  return (
    <div className="issue-picker">
      <label className="field">
        <span>Search issues by title</span>
        <input
          type="search"
          value={search}
          maxLength={200}
          onChange={(event) => setSearch(event.target.value)}
        />
      </label>
      <ErrorNotice error={issues.error} onRetry={issues.reload} />
      {!issues.data && !issues.error && <Loading />}
      <fieldset className="issue-choices" aria-busy={issues.loading}>
        <legend className="sr-only">Issue</legend>
        {allowNew && (
          <label className="issue-choice">
            <input
              type="radio"
              name="issue-choice"
              checked={value === 'new'}
              onChange={() => onChange('new')}
            />
            <span>A new issue</span>
          </label>
        )}
        {choices.map((issue) => (
          <label key={issue.id} className="issue-choice">
            <input
              type="radio"
              name="issue-choice"
              checked={value === issue.id}
              onChange={() => onChange(issue.id)}
            />
            <span className="issue-choice-text">
              {issue.title}{' '}
              <span className="muted small">
                {issue.status === 'open' ? '' : `${issue.status} · `}
                {issue.tool_name ?? 'no tool'} · {formatCount(issue.report_count)}
              </span>
            </span>
          </label>
        ))}
        {issues.data && choices.length === 0 && (
          <p className="muted small">No other issue{q ? ' has that in its title' : ''}.</p>
        )}
      </fieldset>
      {issues.data && issues.data.pagination.total > CHOICES && (
        <p className="muted small">
          The {CHOICES} most recently seen of {formatCount(issues.data.pagination.total)}: search to
          find the others.
        </p>
      )}
    </div>
  );
}
