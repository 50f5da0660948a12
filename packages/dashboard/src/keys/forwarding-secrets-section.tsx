import { useState } from 'react';
import type {
  ConsoleProject,
  CreatedForwardingSecret,
  ForwardingSecret,
} from '../api/console.types';
import { useResource } from '../api/use-resource';
import { useSession } from '../session-context';
import { CreateForm, NameField } from '../ui/create-form';
import { CredentialTable } from '../ui/credential-table';
import { RelativeTime } from '../ui/relative-time';
import { RevokeDialog } from '../ui/revoke-dialog';
import { partitionRevoked, RevokedList } from '../ui/revoked-list';
import { ShownOnce } from '../ui/shown-once';
import { useSecretActions } from '../ui/use-secret-actions';

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
  const actions = useSecretActions<ForwardingSecret, CreatedForwardingSecret>({
    create: () => api.post<CreatedForwardingSecret>(path, { name: name.trim() }),
    revoke: (secret) => api.del(`${path}/${secret.id}`),
    reload: secrets.reload,
    reset: () => setName(''),
  });
  const { active, revoked } = partitionRevoked(secrets.data?.secrets);

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
      <CreateForm
        actions={actions}
        submitLabel="Create forwarding secret"
        ready={name.trim() !== ''}
      >
        <NameField
          label="Secret name"
          name="forwarding-secret-name"
          placeholder="e.g. docs site"
          value={name}
          onChange={setName}
        />
      </CreateForm>

      {actions.created && (
        <ShownOnce
          value={actions.created.secret}
          label="New forwarding secret"
          testId="new-forwarding-secret"
          copyLabel="Copy secret"
          onDone={actions.dismiss}
        >
          <strong>Copy the forwarding secret “{actions.created.name}” now</strong> into the host
          app's configuration. It is shown only this once; Debrief stores only a hash of it.
        </ShownOnce>
      )}

      <CredentialTable
        resource={secrets}
        items={active}
        empty="No forwarding secrets. Agents that send reports themselves need none."
        columns={[
          { header: 'Name', cell: (secret) => secret.name },
          { header: 'Secret', cell: (secret) => <code>{secret.prefix}…</code> },
          { header: 'Created', cell: (secret) => <RelativeTime iso={secret.created_at} /> },
        ]}
        revokeLabel={(secret) => `Revoke forwarding secret ${secret.name}`}
        onRevoke={actions.askRevoke}
      />
      <RevokedList items={revoked} />

      <RevokeDialog
        actions={actions}
        title={`Revoke the forwarding secret “${actions.revoking?.name ?? ''}”?`}
        confirmLabel="Revoke secret"
      >
        <p>
          A host still sending it gets <code>401 invalid_forwarding_secret</code> from the next
          request on (within 10 seconds on every instance). This cannot be undone.
        </p>
      </RevokeDialog>
    </section>
  );
}
