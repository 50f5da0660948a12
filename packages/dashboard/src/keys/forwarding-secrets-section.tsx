import { type FormEvent, useState } from 'react';
import type {
  ConsoleProject,
  CreatedForwardingSecret,
  ForwardingSecret,
} from '../api/console.types';
import { useAction } from '../api/use-action';
import { useResource } from '../api/use-resource';
import { useSession } from '../session-context';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { ErrorNotice, Loading } from '../ui/notice';
import { RelativeTime } from '../ui/relative-time';
import { RevokedList } from '../ui/revoked-list';
import { ShownOnce } from '../ui/shown-once';

/**
 * Forwarding secrets: a host app that forwards reports for many agents (the Express router)
 * sends one, so the per-address limits count each agent's address instead of the host's. Shown
 * once, stored hashed, revocable.
 */
export function ForwardingSecretsSection({ project }: { project: ConsoleProject }) {
  const { api } = useSession();
  const path = `/v1/console/projects/${project.id}/forwarding-secrets`;
  const secrets = useResource(path, () => api.get<{ secrets: ForwardingSecret[] }>(path));
  const [name, setName] = useState('');
  const [created, setCreated] = useState<CreatedForwardingSecret | null>(null);
  const [revoking, setRevoking] = useState<ForwardingSecret | null>(null);
  const creating = useAction();
  const revocation = useAction();
  const busy = creating.busy || revocation.busy;

  function create(event: FormEvent) {
    event.preventDefault();
    void creating.run(async () => {
      setCreated(await api.post<CreatedForwardingSecret>(path, { name: name.trim() }));
      setName('');
      secrets.reload();
    });
  }

  function revoke() {
    if (!revoking) return;
    void revocation.run(async () => {
      await api.del(`${path}/${revoking.id}`);
      setRevoking(null);
      secrets.reload();
    });
  }

  const all = secrets.data?.secrets ?? [];
  const active = all.filter((secret) => !secret.revoked_at);
  const revoked = all.filter((secret) => secret.revoked_at);

  return (
    <section className="card" aria-labelledby="forwarding-title">
      <h2 id="forwarding-title" className="card-title">
        Forwarding secrets <span className="muted small">for host apps</span>
      </h2>
      <p className="muted">
        A server that forwards reports for many agents (such as <code>@debrief/express</code>) is
        one address to Debrief, and would meet the per-address limits meant for a single client.
        Give it a forwarding secret (option <code>forwardingSecret</code>): it sends it in{' '}
        <code>Debrief-Forwarding-Secret</code> with each agent's address in{' '}
        <code>Debrief-Forwarded-For</code>, and each agent is then limited on its own. Keep it on
        the server: never give it to agents.
      </p>
      <form className="inline-form" onSubmit={create}>
        <label className="field field-grow">
          <span>Secret name</span>
          <input
            name="forwarding-secret-name"
            required
            maxLength={100}
            placeholder="e.g. docs site"
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
        </label>
        <button type="submit" className="button button-primary" disabled={busy || !name.trim()}>
          Create forwarding secret
        </button>
      </form>
      <ErrorNotice error={creating.error} />

      {created && (
        <ShownOnce
          value={created.secret}
          label="New forwarding secret"
          testId="new-forwarding-secret"
          copyLabel="Copy secret"
          onDone={() => setCreated(null)}
        >
          <strong>Copy the forwarding secret “{created.name}” now</strong> into the host app's
          configuration. It is shown only this once; Debrief stores only a hash of it.
        </ShownOnce>
      )}

      {secrets.error ? (
        <ErrorNotice error={secrets.error} onRetry={secrets.reload} />
      ) : !secrets.data ? (
        <Loading />
      ) : active.length === 0 ? (
        <p className="muted empty-inline">
          No forwarding secrets. Agents that send reports themselves need none.
        </p>
      ) : (
        <div className="table-scroll">
          <table className="table keys-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Secret</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {active.map((secret) => (
                <tr key={secret.id}>
                  <th scope="row">{secret.name}</th>
                  <td>
                    <code>{secret.prefix}…</code>
                  </td>
                  <td>
                    <RelativeTime iso={secret.created_at} />
                  </td>
                  <td className="actions">
                    <button
                      type="button"
                      className="button button-small button-danger-outline"
                      onClick={() => setRevoking(secret)}
                      aria-label={`Revoke forwarding secret ${secret.name}`}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <RevokedList items={revoked} />

      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke the forwarding secret “${revoking?.name ?? ''}”?`}
        confirmLabel="Revoke secret"
        danger
        busy={busy}
        onConfirm={revoke}
        onCancel={() => {
          setRevoking(null);
          revocation.clear();
        }}
      >
        <p>
          A host still sending it gets <code>401 invalid_forwarding_secret</code> from the next
          request on (within 10 seconds on every instance). This cannot be undone.
        </p>
        <ErrorNotice error={revocation.error} />
      </ConfirmDialog>
    </section>
  );
}
