import type { IssueActivityEntry, IssueActivityList, IssueStatus } from '@debrief/protocol';
import { useResource } from '../api/use-resource';
import { Link } from '../router';
import { useSession } from '../session-context';
import { ErrorNotice, Loading } from '../ui/notice';
import { RelativeTime } from '../ui/relative-time';

const STATUS_WORDS: Record<IssueStatus, string> = {
  open: 'reopened',
  resolved: 'resolved',
  ignored: 'ignored',
};

/** The issue's history: who changed what, newest first. */
export function IssueActivity({
  projectId,
  issueId,
  version,
}: {
  projectId: string;
  issueId: string;
  /** Changes when the issue does: the history reloads. */
  version: string;
}) {
  const { api } = useSession();
  const path = `/v1/dashboard/${projectId}/issues/${issueId}/activity`;
  const activity = useResource(`${path}#${version}`, () => api.get<IssueActivityList>(path));
  const entries = activity.data?.activity ?? [];
  return (
    <section className="card" aria-labelledby="issue-activity-title">
      <h3 id="issue-activity-title" className="card-title">
        History
      </h3>
      <ErrorNotice error={activity.error} onRetry={activity.reload} />
      {!activity.data && !activity.error && <Loading />}
      {activity.data && entries.length === 0 && (
        <p className="muted small">Nobody has triaged this issue yet.</p>
      )}
      {entries.length > 0 && (
        <ol className="activity-list" aria-label="History, newest first">
          {entries.map((entry) => (
            <li key={entry.id} className="activity-item">
              <span className="activity-what">
                <strong>{actorName(entry)}</strong> <What projectId={projectId} entry={entry} />
              </span>
              <span className="muted small">
                <RelativeTime iso={entry.created_at} />
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function actorName(entry: IssueActivityEntry): string {
  if (entry.actor.type === 'system') return 'Debrief';
  if (entry.actor.type === 'api_key') return `API key ${entry.actor.name ?? ''}`.trim();
  return entry.actor.name ?? 'Someone';
}

function What({ projectId, entry }: { projectId: string; entry: IssueActivityEntry }) {
  const other = entry.related_issue_id ? (
    <Link to={`/projects/${projectId}/issues/${entry.related_issue_id}`}>another issue</Link>
  ) : (
    'a new issue'
  );
  switch (entry.action) {
    case 'status':
      return <>{STATUS_WORDS[entry.to as IssueStatus] ?? `set the status to ${entry.to}`} it</>;
    case 'note':
      return entry.to ? <>wrote the note “{entry.to}”</> : <>cleared the note</>;
    case 'renamed':
      return (
        <>
          renamed it from “{entry.from}” to “{entry.to}”
        </>
      );
    case 'merged':
      return <>merged “{entry.from}” into it</>;
    case 'unmerged':
      return <>split {entry.from ? `“${entry.from}”` : 'an issue'} back out of it</>;
    case 'report_moved_in':
      return entry.related_issue_id ? (
        <>moved a report here from {other}</>
      ) : (
        <>moved a report here</>
      );
    case 'report_moved_out':
      return <>moved a report to {other}</>;
  }
}
