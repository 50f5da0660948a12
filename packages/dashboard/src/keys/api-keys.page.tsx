import { type FormEvent, useState } from 'react';
import type { ApiKeySummary, CreatedApiKey } from '../api/console.types';
import { useAction } from '../api/use-action';
import { useResource } from '../api/use-resource';
import { useSession } from '../session-context';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { ErrorNotice, Loading } from '../ui/notice';
import { ExactOrNever, RelativeTime } from '../ui/relative-time';
import { RevokedList } from '../ui/revoked-list';
import { ShownOnce } from '../ui/shown-once';
import { useTitle } from '../ui/use-title';

export function ApiKeysPage() {
  useTitle('API keys');
  return (
    <>
      <div className="page-head">
        <div>
          <h1>API keys</h1>
          <p className="muted">Secret keys that read your reports through the API.</p>
        </div>
      </div>
      <ApiKeysSection />
    </>
  );
}

/** API keys belong to the account: they read every project of it. */
export function ApiKeysSection() {
  const { api } = useSession();
  const keys = useResource('api-keys', () => api.get<ApiKeySummary[]>('/v1/console/api-keys'));
  const [name, setName] = useState('');
  const [triage, setTriage] = useState(false);
  const [admin, setAdmin] = useState(false);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKeySummary | null>(null);
  const creating = useAction();
  const revocation = useAction();
  const busy = creating.busy || revocation.busy;

  function create(event: FormEvent) {
    event.preventDefault();
    void creating.run(async () => {
      const key = await api.post<CreatedApiKey>('/v1/console/api-keys', {
        name: name.trim(),
        scopes: ['read', ...(triage ? ['triage'] : []), ...(admin ? ['admin'] : [])],
      });
      setCreated(key);
      setName('');
      setTriage(false);
      setAdmin(false);
      keys.reload();
    });
  }

  function revoke() {
    if (!revoking) return;
    void revocation.run(async () => {
      await api.del(`/v1/console/api-keys/${revoking.id}`);
      setRevoking(null);
      keys.reload();
    });
  }

  const active = keys.data?.filter((key) => !key.revoked_at) ?? [];
  const revoked = keys.data?.filter((key) => key.revoked_at) ?? [];

  return (
    <section className="card" aria-labelledby="api-keys-title">
      <h2 id="api-keys-title" className="card-title">
        API keys <span className="muted small">for your whole account</span>
      </h2>
      <p className="muted">
        Send one as <code>Authorization: Bearer wk_sk_…</code> to read reports (
        <code>GET /v1/projects</code>, <code>/v1/dashboard/…/reports</code>, the event stream). Keep
        them secret: never put one in a prompt, a SKILL.md or client code.
      </p>
      <form className="inline-form" onSubmit={create}>
        <label className="field field-grow">
          <span>Key name</span>
          <input
            name="api-key-name"
            required
            maxLength={100}
            placeholder="e.g. CI export"
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
        </label>
        <label className="checkbox-row">
          <input
            type="checkbox"
            name="api-key-triage"
            checked={triage}
            onChange={(event) => setTriage(event.target.checked)}
          />{' '}
          Can also triage issues
        </label>
        <label className="checkbox-row">
          <input
            type="checkbox"
            name="api-key-admin"
            checked={admin}
            onChange={(event) => setAdmin(event.target.checked)}
          />{' '}
          Can also manage project settings (notification destinations)
        </label>
        <button type="submit" className="button button-primary" disabled={busy || !name.trim()}>
          Create API key
        </button>
      </form>
      <ErrorNotice error={creating.error} />

      {created && (
        <ShownOnce
          value={created.key}
          label="New API key"
          testId="new-api-key"
          copyLabel="Copy key"
          onDone={() => setCreated(null)}
        >
          <strong>Copy your new key “{created.name}” now.</strong> It is shown only this once;
          Debrief stores only a hash of it.
        </ShownOnce>
      )}

      {keys.error ? (
        <ErrorNotice error={keys.error} onRetry={keys.reload} />
      ) : !keys.data ? (
        <Loading />
      ) : active.length === 0 ? (
        <p className="muted empty-inline">
          No API keys yet. You need one only to read reports from a script or another service;
          agents need the ingest key instead.
        </p>
      ) : (
        <div className="table-scroll">
          <table className="table keys-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {active.map((key) => (
                <tr key={key.id} data-key-id={key.id}>
                  <th scope="row">
                    {key.name}
                    {key.scopes?.includes('triage') && (
                      <span className="muted small" title="Can resolve, ignore, merge and move">
                        {' '}
                        · triage
                      </span>
                    )}
                    {key.scopes?.includes('admin') && (
                      <span className="muted small" title="Can manage notification destinations">
                        {' '}
                        · admin
                      </span>
                    )}
                  </th>
                  <td>
                    <code>{key.prefix}…</code>
                  </td>
                  <td>
                    <RelativeTime iso={key.created_at} />
                  </td>
                  <td>
                    <ExactOrNever iso={key.last_used_at} />
                  </td>
                  <td className="actions">
                    <button
                      type="button"
                      className="button button-small button-danger-outline"
                      onClick={() => setRevoking(key)}
                      aria-label={`Revoke ${key.name}`}
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
        title={`Revoke “${revoking?.name ?? ''}”?`}
        confirmLabel="Revoke key"
        danger
        busy={busy}
        onConfirm={revoke}
        onCancel={() => {
          setRevoking(null);
          revocation.clear();
        }}
      >
        <p>
          Anything using this key gets <code>401</code> from the next request on. This cannot be
          undone.
        </p>
        <ErrorNotice error={revocation.error} />
      </ConfirmDialog>
    </section>
  );
}
