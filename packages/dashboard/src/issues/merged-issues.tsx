import type { MergedIssueList, UnmergedIssue } from '@debrief/protocol';
import { useAction } from '../api/use-action';
import { useResource } from '../api/use-resource';
import { useSession } from '../session-context';
import { formatCount } from '../ui/format';
import { ErrorNotice } from '../ui/notice';
import { RelativeTime } from '../ui/relative-time';

/**
 * The issues merged into this one (GET …/merges), each with an Unmerge action that splits it back
 * out with its reports. Nothing is shown when none was merged. `version` changes when the issue
 * does, to ask again.
 */
export function MergedIssuesCard({
  projectId,
  issueId,
  version,
  onUnmerged,
}: {
  projectId: string;
  issueId: string;
  version: string;
  onUnmerged(restored: UnmergedIssue): void;
}) {
  const { api } = useSession();
  const path = `/v1/dashboard/${projectId}/issues/${issueId}`;
  const merges = useResource(`${path}/merges#${version}`, () =>
    api.get<MergedIssueList>(`${path}/merges`),
  );
  const action = useAction();
  const merged = merges.data?.merged ?? [];
  if (merged.length === 0 && !action.error) return null;

  const unmerge = async (ids?: string[]) => {
    let answer: UnmergedIssue | null = null;
    const ok = await action.run(async () => {
      answer = await api.post<UnmergedIssue>(`${path}/unmerge`, ids ? { issue_ids: ids } : {});
    });
    if (ok && answer) {
      merges.reload();
      onUnmerged(answer);
    }
  };

  return (
    <section className="card merged-issues" aria-labelledby="merged-issues-title">
      <h3 id="merged-issues-title" className="card-title">
        Merged into this issue
      </h3>
      <ul className="similar-list">
        {merged.map((issue) => (
          <li key={issue.id} className="similar-item" data-testid="merged-issue">
            <div className="similar-text">
              <span>{issue.title}</span>
              <span className="muted small">
                {' '}
                {issue.tool_name ?? 'no tool'} · {formatCount(issue.report_count)}{' '}
                {issue.report_count === 1 ? 'report' : 'reports'} · merged{' '}
                <RelativeTime iso={issue.merged_at} />
              </span>
            </div>
            <div className="similar-actions">
              <button
                type="button"
                className="button button-small"
                disabled={action.busy}
                onClick={() => void unmerge([issue.id])}
                aria-label={`Unmerge "${issue.title}"`}
              >
                Unmerge
              </button>
            </div>
          </li>
        ))}
      </ul>
      {merged.length > 1 && (
        <button
          type="button"
          className="button button-small"
          disabled={action.busy}
          onClick={() => void unmerge()}
        >
          Unmerge all
        </button>
      )}
      <ErrorNotice error={action.error} />
    </section>
  );
}
