import type { IssueList, IssueSummary } from '@debrief/protocol';
import { useState } from 'react';
import { useResource } from '../api/use-resource';
import { useSession } from '../session-context';
import { formatCount } from '../ui/format';
import { ErrorNotice, Loading } from '../ui/notice';

/**
 * Choose another issue of the project (merge into it, move a report to it): the 100 open
 * issues seen most recently, filtered by title on the client (the list API has no search).
 * `allowNew` adds "a new issue" as the first choice (moving a report out).
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
  const path = `/v1/dashboard/${projectId}/issues?status=open&sort=last_seen&limit=100`;
  const issues = useResource(path, () => api.get<IssueList>(path));
  const [search, setSearch] = useState('');
  const needle = search.trim().toLowerCase();
  const choices: IssueSummary[] = (issues.data?.issues ?? []).filter(
    (issue) => issue.id !== exclude && (!needle || issue.title.toLowerCase().includes(needle)),
  );
  return (
    <div className="issue-picker">
      <label className="field">
        <span>Search open issues</span>
        <input type="search" value={search} onChange={(event) => setSearch(event.target.value)} />
      </label>
      <ErrorNotice error={issues.error} onRetry={issues.reload} />
      {!issues.data && !issues.error && <Loading />}
      <fieldset className="issue-choices">
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
            <span>
              {issue.title}{' '}
              <span className="muted small">
                {issue.tool_name ?? 'no tool'} · {formatCount(issue.report_count)}
              </span>
            </span>
          </label>
        ))}
        {issues.data && choices.length === 0 && (
          <p className="muted small">No other open issue{needle ? ' matches' : ''}.</p>
        )}
      </fieldset>
    </div>
  );
}
