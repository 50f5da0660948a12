import type { MovedReport, Report, ReportList } from '@debrief/protocol';
import { useState } from 'react';
import { useAction } from '../api/use-action';
import { useResource } from '../api/use-resource';
import { ReportItem } from '../reports/report-item';
import { Link } from '../router';
import { useSession } from '../session-context';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { formatCount, formatExact } from '../ui/format';
import { ErrorNotice, Loading } from '../ui/notice';
import { Pager } from '../ui/pager';
import { IssuePicker } from './issue-picker';

const PAGE_SIZE = 10;

/** An issue's reports, newest first and paged, each movable to another issue or a new one. */
export function IssueReports({
  projectId,
  issueId,
  version,
  onMoved,
}: {
  projectId: string;
  issueId: string;
  /** Changes when the issue does (live, triage): the list reloads. */
  version: string;
  onMoved(moved: MovedReport): void;
}) {
  const { api } = useSession();
  const [page, setPage] = useState(1);
  const path = `/v1/dashboard/${projectId}/reports?issue_id=${issueId}&page=${page}&limit=${PAGE_SIZE}`;
  const reports = useResource(`${path}#${version}`, () => api.get<ReportList>(path));
  const [moving, setMoving] = useState<Report | null>(null);
  const [target, setTarget] = useState<string | null>(null);
  const move = useAction();

  const list = reports.data;
  const pageCount = list ? Math.max(1, Math.ceil(list.pagination.total / PAGE_SIZE)) : 1;

  const confirmMove = async () => {
    if (!moving || !target) return;
    let moved: MovedReport | undefined;
    const ok = await move.run(async () => {
      moved = await api.post<MovedReport>(
        `/v1/dashboard/${projectId}/reports/${moving.id}/move`,
        target === 'new' ? { new_issue: true } : { issue_id: target },
      );
    });
    if (ok && moved) {
      setMoving(null);
      setTarget(null);
      reports.reload();
      onMoved(moved);
    }
  };

  return (
    <section className="card" aria-labelledby="issue-reports-title">
      <div className="list-bar">
        <h3 id="issue-reports-title" className="card-title">
          {list ? `${formatCount(list.pagination.total)} reports` : 'Reports'}
          <span className="muted small"> newest first</span>
        </h3>
        <Link to={`/projects/${projectId}/reports?issue_id=${issueId}`} className="small">
          Open in the Reports view
        </Link>
      </div>
      <ErrorNotice error={reports.error} onRetry={reports.reload} />
      {!list && !reports.error && <Loading />}
      {list && list.reports.length > 0 && (
        <ol className="report-list" aria-label="Reports of this issue, newest first">
          {list.reports.map((report) => (
            <ReportItem
              key={report.id}
              report={report}
              fresh={false}
              actions={
                <>
                  {report.issue_reason && (
                    <span className="muted small issue-reason">
                      Why here: {report.issue_reason}
                    </span>
                  )}
                  <button
                    type="button"
                    className="button button-small"
                    aria-label={`Move report of ${formatExact(report.created_at)} to another issue`}
                    onClick={() => {
                      move.clear();
                      setTarget('new');
                      setMoving(report);
                    }}
                  >
                    Move…
                  </button>
                </>
              }
            />
          ))}
        </ol>
      )}
      <Pager
        page={page}
        pageCount={list ? pageCount : 0}
        onPage={setPage}
        label="Pages of reports"
        previous="Newer"
        next="Older"
      />
      {moving && (
        <ConfirmDialog
          open
          title="Move this report"
          confirmLabel="Move report"
          busy={move.busy}
          onConfirm={() => void confirmMove()}
          onCancel={() => setMoving(null)}
        >
          <p className="muted small">
            The grouping remembers: reports like this one will follow it.
          </p>
          <IssuePicker
            projectId={projectId}
            exclude={issueId}
            value={target}
            allowNew
            onChange={setTarget}
          />
          <ErrorNotice error={move.error} />
        </ConfirmDialog>
      )}
    </section>
  );
}
