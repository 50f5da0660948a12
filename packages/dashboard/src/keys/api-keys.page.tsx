import { useState } from 'react';
import type { ApiKeySummary, CreatedApiKey } from '../api/console.types';
import { useResource } from '../api/use-resource';
import { useSession } from '../session-context';
import { CreateForm, NameField } from '../ui/create-form';
import { CredentialTable } from '../ui/credential-table';
import { ExactOrNever, RelativeTime } from '../ui/relative-time';
import { RevokeDialog } from '../ui/revoke-dialog';
import { partitionRevoked, RevokedList } from '../ui/revoked-list';
import { ShownOnce } from '../ui/shown-once';
import { useSecretActions } from '../ui/use-secret-actions';
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
  const actions = useSecretActions<ApiKeySummary, CreatedApiKey>({
    create: () =>
      api.post<CreatedApiKey>('/v1/console/api-keys', {
        name: name.trim(),
        scopes: ['read', ...(triage ? ['triage'] : []), ...(admin ? ['admin'] : [])],
      }),
    revoke: (key) => api.del(`/v1/console/api-keys/${key.id}`),
    reload: keys.reload,
    reset: () => {
      setName('');
      setTriage(false);
      setAdmin(false);
    },
  });
  const { active, revoked } = partitionRevoked(keys.data);

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
      <CreateForm actions={actions} submitLabel="Create API key" ready={name.trim() !== ''}>
        <NameField
          label="Key name"
          name="api-key-name"
          placeholder="e.g. CI export"
          value={name}
          onChange={setName}
        />
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
      </CreateForm>

      {actions.created && (
        <ShownOnce
          value={actions.created.key}
          label="New API key"
          testId="new-api-key"
          copyLabel="Copy key"
          onDone={actions.dismiss}
        >
          <strong>Copy your new key “{actions.created.name}” now.</strong> It is shown only this
          once; Debrief stores only a hash of it.
        </ShownOnce>
      )}

      <CredentialTable
        resource={keys}
        items={active}
        empty={
          <>
            No API keys yet. You need one only to read reports from a script or another service;
            agents need the ingest key instead.
          </>
        }
        columns={[
          { header: 'Name', cell: (key) => <KeyName apiKey={key} /> },
          { header: 'Key', cell: (key) => <code>{key.prefix}…</code> },
          { header: 'Created', cell: (key) => <RelativeTime iso={key.created_at} /> },
          { header: 'Last used', cell: (key) => <ExactOrNever iso={key.last_used_at} /> },
        ]}
        revokeLabel={(key) => `Revoke ${key.name}`}
        onRevoke={actions.askRevoke}
        rowData={(key) => ({ 'data-key-id': key.id })}
      />
      <RevokedList items={revoked} />

      <RevokeDialog
        actions={actions}
        title={`Revoke “${actions.revoking?.name ?? ''}”?`}
        confirmLabel="Revoke key"
      >
        <p>
          Anything using this key gets <code>401</code> from the next request on. This cannot be
          undone.
        </p>
      </RevokeDialog>
    </section>
  );
}

/** A key's name, with the scopes beyond reading that it carries. */
function KeyName({ apiKey }: { apiKey: ApiKeySummary }) {
  return (
    <>
      {apiKey.name}
      {apiKey.scopes?.includes('triage') && (
        <span className="muted small" title="Can resolve, ignore, merge and move">
          {' '}
          · triage
        </span>
      )}
      {apiKey.scopes?.includes('admin') && (
        <span className="muted small" title="Can manage notification destinations">
          {' '}
          · admin
        </span>
      )}
    </>
  );
}
