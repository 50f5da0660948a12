import type { Delivery, Destination } from '@debrief/protocol';
import { useState } from 'react';
import type { ConsoleProject } from '../api/console.types';
import { useAction } from '../api/use-action';
import { useResource } from '../api/use-resource';
import { useSession } from '../session-context';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { ErrorNotice, Loading } from '../ui/notice';
import { ShownOnce } from '../ui/shown-once';
import { DeliveryLog } from './delivery-log';
import { type DestinationFields, DestinationForm, EVENT_LABELS } from './destination-form';

const STATUS_TEXT: Record<Destination['status'], string> = {
  active: 'Active',
  paused: 'Paused',
  failing: 'Paused: failing for a day',
  gone: 'Disabled: the receiver answered 410 Gone',
};

/**
 * The project's notification destinations: add, edit, pause and resume, send a test, rotate a
 * webhook's secret (shown once), delete, and each one's delivery log.
 */
export function NotificationsPage({ project }: { project: ConsoleProject }) {
  const { api } = useSession();
  const base = `/v1/dashboard/${project.id}/destinations`;
  const destinations = useResource(`destinations/${project.id}`, () =>
    api.get<{ data: Destination[] }>(base),
  );
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const [logOf, setLogOf] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ name: string; value: string } | null>(null);
  const [deleting, setDeleting] = useState<Destination | null>(null);
  const [tested, setTested] = useState<{ id: string; result: Delivery } | null>(null);
  const action = useAction();

  const label = (d: Destination) => d.name ?? d.url ?? d.to?.join(', ') ?? d.type;

  function create(fields: DestinationFields) {
    void action.run(async () => {
      const created = await api.post<Destination>(base, fields);
      if (created.secret) setSecret({ name: label(created), value: created.secret });
      setAdding(false);
      destinations.reload();
    });
  }

  function update(id: string, body: Record<string, unknown>) {
    return action.run(async () => {
      const changed = await api.patch<Destination>(`${base}/${id}`, body);
      if (changed.secret) setSecret({ name: label(changed), value: changed.secret });
      setEditing(null);
      destinations.reload();
    });
  }

  function sendTest(id: string) {
    void action.run(async () => {
      setTested({ id, result: await api.post<Delivery>(`${base}/${id}/test`) });
      destinations.reload();
    });
  }

  function remove() {
    if (!deleting) return;
    void action.run(async () => {
      await api.del(`${base}/${deleting.id}`);
      setDeleting(null);
      destinations.reload();
    });
  }

  const list = destinations.data?.data ?? [];
  return (
    <section className="card" aria-labelledby="notifications-title">
      <h2 id="notifications-title" className="card-title">
        Notifications
      </h2>
      <p className="muted">
        Where Debrief tells you about new, regressed and spiking issues, quota and throttling, and
        the daily digest: a signed webhook, a Slack channel, or email.
      </p>
      {secret && (
        <ShownOnce
          value={secret.value}
          label="Webhook signing secret"
          testId="webhook-secret"
          copyLabel="Copy secret"
          onDone={() => setSecret(null)}
        >
          <strong>Copy the signing secret of “{secret.name}” now.</strong> It is shown only this
          once; your receiver verifies each request with it.
        </ShownOnce>
      )}
      <ErrorNotice error={action.error} />
      {destinations.error ? (
        <ErrorNotice error={destinations.error} onRetry={destinations.reload} />
      ) : !destinations.data ? (
        <Loading />
      ) : list.length === 0 && !adding ? (
        <p className="muted empty-inline">No destinations yet.</p>
      ) : (
        <ul className="destination-list">
          {list.map((d) => (
            <li key={d.id} className="destination" data-destination-id={d.id}>
              <div className="destination-head">
                <strong>{label(d)}</strong> <span className="muted small">{d.type}</span>{' '}
                <span
                  className={`pill destination-status status-${d.status}`}
                  data-testid="destination-status"
                >
                  {STATUS_TEXT[d.status]}
                </span>
              </div>
              <p className="muted small">
                {d.events.map((e) => EVENT_LABELS[e]).join(' · ')}
                {d.last_error && <> · last error: {d.last_error}</>}
              </p>
              <div className="issue-actions">
                <button
                  type="button"
                  className="button button-small"
                  disabled={action.busy}
                  onClick={() => sendTest(d.id)}
                >
                  Send a test
                </button>
                <button
                  type="button"
                  className="button button-small"
                  disabled={action.busy}
                  onClick={() => void update(d.id, { paused: d.status === 'active' })}
                >
                  {d.status === 'active' ? 'Pause' : 'Resume'}
                </button>
                <button
                  type="button"
                  className="button button-small"
                  onClick={() => setEditing(editing === d.id ? null : d.id)}
                >
                  Edit
                </button>
                {d.type === 'webhook' && (
                  <button
                    type="button"
                    className="button button-small"
                    disabled={action.busy}
                    onClick={() => void update(d.id, { rotate_secret: true })}
                  >
                    Rotate secret
                  </button>
                )}
                <button
                  type="button"
                  className="button button-small"
                  onClick={() => setLogOf(logOf === d.id ? null : d.id)}
                >
                  {logOf === d.id ? 'Hide deliveries' : 'Deliveries'}
                </button>
                <button
                  type="button"
                  className="button button-small button-danger-outline"
                  onClick={() => setDeleting(d)}
                  aria-label={`Delete ${label(d)}`}
                >
                  Delete
                </button>
              </div>
              {tested?.id === d.id && (
                <p className="small" role="status" data-testid="test-result">
                  Test {tested.result.status}
                  {tested.result.response_status !== null &&
                    ` (HTTP ${tested.result.response_status})`}
                  {tested.result.error && `: ${tested.result.error}`}
                </p>
              )}
              {editing === d.id && (
                <DestinationForm
                  existing={d}
                  busy={action.busy}
                  onSubmit={({ type: _type, ...fields }) => void update(d.id, fields)}
                  onCancel={() => setEditing(null)}
                />
              )}
              {logOf === d.id && <DeliveryLog projectId={project.id} destinationId={d.id} />}
            </li>
          ))}
        </ul>
      )}
      {adding ? (
        <DestinationForm
          existing={null}
          busy={action.busy}
          onSubmit={create}
          onCancel={() => setAdding(false)}
        />
      ) : (
        <button type="button" className="button button-primary" onClick={() => setAdding(true)}>
          Add a destination
        </button>
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete “${deleting ? label(deleting) : ''}”?`}
        confirmLabel="Delete destination"
        danger
        busy={action.busy}
        onConfirm={remove}
        onCancel={() => {
          setDeleting(null);
          action.clear();
        }}
      >
        <p>It receives nothing more; its pending deliveries are dropped.</p>
      </ConfirmDialog>
    </section>
  );
}
