import type { CreateMuteBody, Destination, IssueStatus, Mute, MuteList } from '@debrief/protocol';
import { type FormEvent, useState } from 'react';
import { ApiFailure } from '../api/api-client';
import { useAction } from '../api/use-action';
import { useResource } from '../api/use-resource';
import { Link } from '../router';
import { useSession } from '../session-context';
import { formatCount } from '../ui/format';
import { ErrorNotice } from '../ui/notice';
import { RelativeTime } from '../ui/relative-time';

type Span = '1h' | '24h' | '7d' | 'count' | 'unmuted';

const SPANS: { value: Span; label: string }[] = [
  { value: '1h', label: 'For 1 hour' },
  { value: '24h', label: 'For 24 hours' },
  { value: '7d', label: 'For 7 days' },
  { value: 'count', label: 'Until it happens N more times' },
  { value: 'unmuted', label: 'Until unmuted' },
];

const HOURS: Partial<Record<Span, number>> = { '1h': 1, '24h': 24, '7d': 7 * 24 };

/** A 403 `missing_scope` (or any 403): this sign-in may read the mutes but not change them. */
const forbidden = (error: unknown) => error instanceof ApiFailure && error.status === 403;

/**
 * The issue's notification mutes (GET …/issues/{issueId}/mutes): the ones in force, each with
 * Unmute, and a form that mutes the issue for every destination or one, for a time, until it
 * happens N more times, or until unmuted. Muting is triage (the mutes API's `triage` scope);
 * where the API refuses it, the controls stay visible but disabled, saying why.
 */
export function IssueMutes({
  projectId,
  issueId,
  status,
  reportCount,
  version,
}: {
  projectId: string;
  issueId: string;
  status: IssueStatus;
  reportCount: number;
  /** Changes with the issue: a mute "until N more reports" ends as reports arrive. */
  version: string;
}) {
  const { api } = useSession();
  const path = `/v1/dashboard/${projectId}/issues/${issueId}/mutes`;
  const mutes = useResource(`${path}#${version}`, () => api.get<MuteList>(path));
  const destinationsPath = `/v1/dashboard/${projectId}/destinations`;
  const destinations = useResource(destinationsPath, () =>
    api.get<{ data: Destination[] }>(destinationsPath),
  );
  const action = useAction();
  const [open, setOpen] = useState(false);

  const known = destinations.data?.data ?? [];
  const nameOf = (id: string | null) => {
    if (id === null) return 'All destinations';
    const destination = known.find((d) => d.id === id);
    return destination ? destinationLabel(destination) : 'A deleted destination';
  };
  const active = (mutes.data?.data ?? []).filter((mute) => mute.active);
  const disabled = forbidden(mutes.error) || forbidden(action.error);

  const run = async (work: () => Promise<void>) => {
    const ok = await action.run(work);
    if (ok) mutes.reload();
    return ok;
  };
  const unmute = (mute: Mute) => run(() => api.del(`${path}/${mute.id}`));
  const mute = async (body: CreateMuteBody) => {
    if (await run(() => api.post(path, body))) setOpen(false);
  };
  return (
    <section className="card issue-mutes" aria-labelledby="issue-mutes-title">
      <h3 id="issue-mutes-title" className="card-title">
        Notifications
      </h3>
      {active.length === 0 ? (
        <p className="muted small" data-testid="mute-state">
          {status === 'ignored'
            ? 'Ignored: this issue sends no regressed or spiking notifications.'
            : 'Not muted: this issue notifies every destination that subscribes to its events.'}
        </p>
      ) : (
        <>
          <p className="small" data-testid="mute-state">
            <span className="pill pill-muted">Muted</span> this issue sends nothing to{' '}
            {active.some((m) => m.destination_id === null)
              ? 'any destination'
              : 'the destinations below'}
            .
          </p>
          <ul className="mute-list">
            {active.map((m) => (
              <li key={m.id} className="mute-item" data-testid="mute">
                <span>
                  <strong>{nameOf(m.destination_id)}</strong>{' '}
                  <span className="muted small">
                    <MuteEnd mute={m} reportCount={reportCount} />
                  </span>
                </span>
                <button
                  type="button"
                  className="button button-small"
                  disabled={action.busy || disabled}
                  aria-label={`Unmute ${nameOf(m.destination_id)}`}
                  onClick={() => void unmute(m)}
                >
                  Unmute
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      {open && !disabled ? (
        <MuteForm
          destinations={known}
          busy={action.busy}
          onSubmit={(body) => void mute(body)}
          onCancel={() => {
            action.clear();
            setOpen(false);
          }}
        />
      ) : (
        <button
          type="button"
          className="button button-small"
          disabled={disabled}
          aria-describedby={disabled ? 'issue-mutes-disabled' : undefined}
          onClick={() => {
            action.clear();
            setOpen(true);
          }}
        >
          Mute notifications…
        </button>
      )}
      {disabled && (
        <p className="muted small" id="issue-mutes-disabled">
          Muting is triage: it needs the dashboard or an API key with the <code>triage</code> scope.
        </p>
      )}
      {!disabled && destinations.data && known.length === 0 && (
        <p className="muted small">
          No destinations yet: a mute made now holds once you{' '}
          <Link to={`/projects/${projectId}/notifications`}>add one</Link>.
        </p>
      )}
      {!forbidden(action.error) && <ErrorNotice error={action.error} />}
      {!forbidden(mutes.error) && <ErrorNotice error={mutes.error} onRetry={mutes.reload} />}
    </section>
  );
}

/** "until in 23 hours", "until it reaches 57 reports (10 more)", both with "or", "until unmuted". */
function MuteEnd({ mute, reportCount }: { mute: Mute; reportCount: number }) {
  const byCount =
    mute.until_count === null
      ? null
      : `until it reaches ${formatCount(mute.until_count)} reports (${formatCount(
          Math.max(0, mute.until_count - reportCount),
        )} more)`;
  if (!mute.until) return <span>{byCount ?? 'until unmuted'}</span>;
  return (
    <span>
      until <RelativeTime iso={mute.until} />
      {byCount && ` or ${byCount}`}
    </span>
  );
}

function MuteForm({
  destinations,
  busy,
  onSubmit,
  onCancel,
}: {
  destinations: readonly Destination[];
  busy: boolean;
  onSubmit(body: CreateMuteBody): void;
  onCancel(): void;
}) {
  const [destination, setDestination] = useState('');
  const [span, setSpan] = useState<Span>('24h');
  const [reports, setReports] = useState('10');

  function submit(event: FormEvent) {
    event.preventDefault();
    const hours = HOURS[span];
    onSubmit({
      ...(destination ? { destination_id: destination } : {}),
      ...(hours !== undefined ? { hours } : {}),
      ...(span === 'count' ? { reports: Number(reports) } : {}),
    });
  }

  return (
    <form className="mute-form" onSubmit={submit} aria-label="Mute notifications">
      <label className="field">
        <span>Destination</span>
        <select value={destination} onChange={(e) => setDestination(e.target.value)}>
          <option value="">All destinations</option>
          {destinations.map((d) => (
            <option key={d.id} value={d.id}>
              {destinationLabel(d)}
            </option>
          ))}
        </select>
      </label>
      <fieldset className="mute-spans">
        <legend>How long</legend>
        {SPANS.map((choice) => (
          <label key={choice.value} className="checkbox-row">
            <input
              type="radio"
              name="mute-span"
              value={choice.value}
              checked={span === choice.value}
              onChange={() => setSpan(choice.value)}
            />
            {choice.label}
          </label>
        ))}
        {span === 'count' && (
          <label className="field">
            <span>N (more reports)</span>
            <input
              type="number"
              min={1}
              max={1_000_000}
              step={1}
              required
              value={reports}
              onChange={(e) => setReports(e.target.value)}
            />
          </label>
        )}
      </fieldset>
      <div className="inline-form">
        <button type="submit" className="button button-primary button-small" disabled={busy}>
          Mute
        </button>
        <button type="button" className="button button-small" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** A destination as the Notifications page names it: its name, else where it sends. */
function destinationLabel(d: Destination): string {
  const where = d.url ?? d.to?.join(', ') ?? d.type;
  return d.name ? `${d.name} (${d.type})` : `${where} (${d.type})`;
}
