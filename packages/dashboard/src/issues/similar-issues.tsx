import type { SimilarIssues } from '@debrief/protocol';
import { useAction } from '../api/use-action';
import { useResource } from '../api/use-resource';
import { Link } from '../router';
import { useSession } from '../session-context';
import { formatCount } from '../ui/format';
import { ErrorNotice } from '../ui/notice';

/**
 * The issues likely to be this same problem (GET …/similar), each with one-click "Merge here"
 * (the suggestion joins this issue) and "Not the same" (never suggested again). Nothing is shown
 * when there is no suggestion. `version` changes when the issue does, to ask again.
 */
export function SimilarIssuesCard({
  projectId,
  issueId,
  version,
  onMerged,
}: {
  projectId: string;
  issueId: string;
  version: string;
  onMerged(): void;
}) {
  const { api } = useSession();
  const base = `/v1/dashboard/${projectId}/issues`;
  const path = `${base}/${issueId}/similar`;
  const similar = useResource(`${path}#${version}`, () => api.get<SimilarIssues>(path));
  const action = useAction();
  const suggestions = similar.data?.similar ?? [];
  if (suggestions.length === 0 && !action.error) return null;

  const merge = async (otherId: string) => {
    const ok = await action.run(() => api.post(`${base}/${otherId}/merge`, { into: issueId }));
    if (ok) {
      similar.reload();
      onMerged();
    }
  };
  const reject = async (otherId: string) => {
    const ok = await action.run(() =>
      api.post(`${base}/${issueId}/similar/reject`, { issue_id: otherId }),
    );
    if (ok) similar.reload();
  };

  return (
    <section className="card similar-issues" aria-labelledby="similar-issues-title">
      <h3 id="similar-issues-title" className="card-title">
        Possibly the same problem
      </h3>
      <ul className="similar-list">
        {suggestions.map(({ issue, score, reason }) => (
          <li key={issue.id} className="similar-item" data-testid="similar-issue">
            <div className="similar-text">
              <Link to={`/projects/${projectId}/issues/${issue.id}`}>{issue.title}</Link>
              <span className="muted small">
                {' '}
                {formatCount(issue.report_count)} {issue.report_count === 1 ? 'report' : 'reports'}{' '}
                · {Math.round(score * 100)}% alike
              </span>
              <p className="muted small similar-reason">{reason}</p>
            </div>
            <div className="similar-actions">
              <button
                type="button"
                className="button button-small"
                disabled={action.busy}
                onClick={() => void merge(issue.id)}
                aria-label={`Merge here: ${issue.title}`}
              >
                Merge here
              </button>
              <button
                type="button"
                className="button button-small button-ghost"
                disabled={action.busy}
                onClick={() => void reject(issue.id)}
                aria-label={`Not the same: ${issue.title}`}
              >
                Not the same
              </button>
            </div>
          </li>
        ))}
      </ul>
      <ErrorNotice error={action.error} />
    </section>
  );
}
