import type { IssueDetail, IssueStatus } from '@debrief/protocol';
import { OUTCOMES } from '@debrief/protocol';
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiFailure } from '../api/api-client';
import type { ConsoleProject } from '../api/console.types';
import { useAction } from '../api/use-action';
import { useResource } from '../api/use-resource';
import { DailyBars, lastDays } from '../charts/daily-bars';
import { useWidth } from '../charts/use-width';
import { LiveIndicator } from '../reports/live-indicator';
import { useLiveReports } from '../reports/use-live-reports';
import { useThrottledRefresh } from '../reports/use-throttled-refresh';
import { Link, navigate } from '../router';
import { useSession } from '../session-context';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { formatCount, formatDay, OUTCOME_LABELS } from '../ui/format';
import { ErrorNotice, Loading } from '../ui/notice';
import { RelativeTime } from '../ui/relative-time';
import { useTitle } from '../ui/use-title';
import { AgentNote } from './agent-note';
import { IssueActivity } from './issue-activity';
import { IssueMutes } from './issue-mutes';
import { IssuePicker } from './issue-picker';
import { IssueReports } from './issue-reports';
import { IssueTitle } from './issue-title';
import { MergedIssuesCard } from './merged-issues';
import { SimilarIssuesCard } from './similar-issues';
import { ToolCalls } from './tool-calls';

const CHART_DAYS = 30;
const STATUS_LABELS: Record<IssueStatus, string> = {
  open: 'Open',
  resolved: 'Resolved',
  ignored: 'Ignored',
};

/** One issue: what it is, its numbers, its note and reports; resolve, ignore, merge, move. */
export function IssuePage({ project, issueId }: { project: ConsoleProject; issueId: string }) {
  const { api, refreshSession } = useSession();
  const path = `/v1/dashboard/${project.id}/issues/${issueId}`;
  const issue = useResource(path, () => api.get<IssueDetail>(path));
  // The header's "reports this month" moves with the reports, as on the lists.
  const refresh = useCallback(() => {
    issue.reload();
    refreshSession();
  }, [issue.reload, refreshSession]);
  const scheduleRefresh = useThrottledRefresh(refresh, { intervalMs: 1500, settleMs: 300 });
  const live = useLiveReports(project.id, scheduleRefresh, issue.reload, (event) => {
    if (event.issue.id === issueId && event.change === 'merged' && event.into) {
      navigate(`/projects/${project.id}/issues/${event.into}`, { replace: true });
    } else if (event.issue.id === issueId) scheduleRefresh();
  });
  const data = issue.data;
  useTitle(data?.title ?? 'Issue', project.name);

  const triage = useAction();
  const setStatus = useCallback(
    async (status: IssueStatus) => {
      if (await triage.run(() => api.patch(path, { status }))) issue.reload();
    },
    [triage.run, api, path, issue.reload],
  );

  const [merging, setMerging] = useState(false);
  const [mergeInto, setMergeInto] = useState<string | null>(null);
  const merge = useAction();
  const confirmMerge = async () => {
    if (!mergeInto) return;
    const ok = await merge.run(() => api.post(`${path}/merge`, { into: mergeInto }));
    if (ok) {
      setMerging(false);
      navigate(`/projects/${project.id}/issues/${mergeInto}`);
    }
  };

  const gone = issue.error instanceof ApiFailure && issue.error.status === 404;
  if (gone) {
    return (
      <section className="empty card">
        <h2>This issue no longer exists</h2>
        <p>It was merged into another issue, or its last report was moved out.</p>
        <Link to={`/projects/${project.id}`}>Back to the issues</Link>
      </section>
    );
  }
  if (!data) {
    return issue.error ? <ErrorNotice error={issue.error} onRetry={issue.reload} /> : <Loading />;
  }
  return (
    <div className="issue-page">
      <div className="section-bar">
        <Link to={`/projects/${project.id}`} className="small">
          ← Issues
        </Link>
        <LiveIndicator status={live} />
      </div>
      <IssueTitle key={data.id} path={path} title={data.title} onRenamed={issue.reload} />
      <div className="issue-meta">
        <span className="pill" data-testid="issue-status">
          {STATUS_LABELS[data.status]}
        </span>
        {data.regressed_at && (
          <span className="pill pill-regressed">
            Regressed <RelativeTime iso={data.regressed_at} />
          </span>
        )}
        <span className={`badge badge-${data.outcome}`}>{OUTCOME_LABELS[data.outcome]}</span>
        <span className="issue-tool">{data.tool_name ?? 'no tool named'}</span>
        <span className="muted small">
          first seen <RelativeTime iso={data.first_seen} />, last seen{' '}
          <RelativeTime iso={data.last_seen} />
        </span>
      </div>
      <div className="issue-actions">
        {data.status !== 'resolved' && (
          <button
            type="button"
            className="button button-primary"
            disabled={triage.busy}
            onClick={() => void setStatus('resolved')}
          >
            Resolve
          </button>
        )}
        {data.status !== 'ignored' && (
          <button
            type="button"
            className="button"
            disabled={triage.busy}
            onClick={() => void setStatus('ignored')}
          >
            Ignore
          </button>
        )}
        {data.status !== 'open' && (
          <button
            type="button"
            className="button"
            disabled={triage.busy}
            onClick={() => void setStatus('open')}
          >
            Reopen
          </button>
        )}
        <button
          type="button"
          className="button"
          onClick={() => {
            merge.clear();
            setMergeInto(null);
            setMerging(true);
          }}
        >
          Merge into…
        </button>
      </div>
      <ErrorNotice error={triage.error} />

      <div className="issue-grid">
        <IssueNote key={data.id} path={path} note={data.note} onSaved={issue.reload} />
        <AgentNote
          key={`agent-${data.id}`}
          path={path}
          agentNote={data.agent_note}
          onSaved={issue.reload}
        />
        <IssueMutes
          projectId={project.id}
          issueId={issueId}
          status={data.status}
          reportCount={data.report_count}
          version={`${data.report_count}:${data.updated_at}`}
        />
        <section className="card" aria-labelledby="issue-numbers-title">
          <h3 id="issue-numbers-title" className="card-title">
            {formatCount(data.report_count)} {data.report_count === 1 ? 'report' : 'reports'}
          </h3>
          <dl className="outcome-counts">
            {OUTCOMES.filter((outcome) => data.outcome_counts[outcome] > 0).map((outcome) => (
              <div key={outcome}>
                <dt>
                  <span className={`dot dot-${outcome}`} aria-hidden="true" />
                  {OUTCOME_LABELS[outcome]}
                </dt>
                <dd>{formatCount(data.outcome_counts[outcome])}</dd>
              </div>
            ))}
          </dl>
          {data.tool_name && <ToolCalls projectId={project.id} tool={data.tool_name} />}
          <Breakdown title="Sources" rows={data.sources.map((s) => [s.source, s.count])} />
          <Breakdown title="Agent clients" rows={data.clients.map((c) => [c.client, c.count])} />
          <Breakdown title="Models" rows={(data.models ?? []).map((m) => [m.model, m.count])} />
          <Breakdown
            title="Client versions"
            rows={(data.client_versions ?? []).map((v) => [clientVersion(v), v.count])}
          />
        </section>
      </div>
      <SimilarIssuesCard
        projectId={project.id}
        issueId={issueId}
        version={`${data.report_count}:${data.updated_at}`}
        onMerged={issue.reload}
      />
      <MergedIssuesCard
        projectId={project.id}
        issueId={issueId}
        version={`${data.report_count}:${data.updated_at}`}
        onUnmerged={issue.reload}
      />
      <section className="card" aria-labelledby="issue-chart-title">
        <h3 id="issue-chart-title" className="card-title">
          Reports per day <span className="muted small">(last {CHART_DAYS} days, UTC)</span>
        </h3>
        <IssueChart daily={data.daily} />
      </section>
      <IssueActivity
        projectId={project.id}
        issueId={issueId}
        // Wire times have whole seconds: two changes in one second differ in what they changed.
        version={`${data.updated_at}:${data.status}:${data.title}:${data.note}:${data.report_count}`}
      />
      <IssueReports
        projectId={project.id}
        issueId={issueId}
        version={`${data.report_count}:${data.last_seen}`}
        onMoved={() => issue.reload()}
      />
      {merging && (
        <ConfirmDialog
          open
          title="Merge this issue into another"
          confirmLabel="Merge"
          busy={merge.busy}
          onConfirm={() => void confirmMerge()}
          onCancel={() => setMerging(false)}
        >
          <p className="muted small">
            Its reports join the issue you choose, which keeps its own status, title and note. This
            issue then goes away.
          </p>
          <IssuePicker
            projectId={project.id}
            exclude={issueId}
            value={mergeInto}
            onChange={setMergeInto}
          />
          <ErrorNotice error={merge.error} />
        </ConfirmDialog>
      )}
    </div>
  );
}

function IssueNote({
  path,
  note,
  onSaved,
}: {
  path: string;
  note: string | null;
  onSaved(): void;
}) {
  const { api } = useSession();
  const [text, setText] = useState(note ?? '');
  const shown = useRef(note ?? '');
  const save = useAction();
  // A note saved elsewhere (another tab, or this form's own save) replaces the text unless
  // the text is being edited.
  useEffect(() => {
    setText((current) => (current === shown.current ? (note ?? '') : current));
    shown.current = note ?? '';
  }, [note]);
  const dirty = text !== (note ?? '');
  return (
    <section className="card" aria-labelledby="issue-note-title">
      <h3 id="issue-note-title" className="card-title">
        Note <span className="muted small">(private: agents never see it)</span>
      </h3>
      <form
        className="issue-note"
        onSubmit={async (event) => {
          event.preventDefault();
          const ok = await save.run(() => api.patch(path, { note: text.trim() ? text : null }));
          if (ok) {
            shown.current = text;
            onSaved();
          }
        }}
      >
        <textarea
          aria-label="Issue note"
          rows={4}
          value={text}
          placeholder="What you found, who is on it, the fix's pull request…"
          onChange={(event) => setText(event.target.value)}
        />
        <div className="issue-note-actions">
          <button type="submit" className="button button-small" disabled={!dirty || save.busy}>
            Save note
          </button>
          {!dirty && note && <span className="muted small">Saved</span>}
        </div>
        <ErrorNotice error={save.error} />
      </form>
    </section>
  );
}

/** "claude-code 2.1.0"; null when the reports name neither. */
function clientVersion(entry: IssueDetail['client_versions'][number]): string | null {
  if (entry.client === null && entry.version === null) return null;
  return [entry.client ?? 'unnamed client', entry.version ?? '(no version)'].join(' ');
}

function Breakdown({ title, rows }: { title: string; rows: [string | null, number][] }) {
  if (rows.length === 0) return null;
  return (
    <div className="breakdown">
      <h4 className="breakdown-title">{title}</h4>
      <ul>
        {rows.map(([name, count]) => (
          <li key={name ?? '(none)'}>
            <span className={name ? '' : 'muted'}>{name ?? 'not given'}</span>
            <span>{formatCount(count)}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

function IssueChart({ daily }: { daily: IssueDetail['daily'] }) {
  const ref = useRef<HTMLDivElement>(null);
  const width = Math.max(useWidth(ref), 240);
  const days = lastDays(daily, CHART_DAYS);
  return (
    <div ref={ref} className="issue-chart">
      <DailyBars days={days} width={width} height={120} label="Reports per day, chart" />
      <div className="sr-only">
        <table>
          <caption>Reports per day</caption>
          <tbody>
            {days
              .filter((entry) => entry.count > 0)
              .map((entry) => (
                <tr key={entry.day}>
                  <th scope="row">{formatDay(entry.day)}</th>
                  <td>{formatCount(entry.count)}</td>
                </tr>
              ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
