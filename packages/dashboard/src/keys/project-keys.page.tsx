import { useState } from 'react';
import type { ConsoleProject, RedactionSettings } from '../api/console.types';
import { useAction } from '../api/use-action';
import { useResource } from '../api/use-resource';
import { useSession } from '../session-context';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { CopyButton } from '../ui/copy-button';
import { ErrorNotice, Loading } from '../ui/notice';
import { ApiKeysSection } from './api-keys.page';
import { ForwardingSecretsSection } from './forwarding-secrets-section';
import { RateLimitsSection } from './rate-limits-section';

export function ProjectKeysPage({ project }: { project: ConsoleProject }) {
  return (
    <div className="stack">
      <IngestKeyCard project={project} />
      <RateLimitsSection project={project} />
      <ForwardingSecretsSection project={project} />
      <RedactionCard project={project} />
      <ApiKeysSection />
    </div>
  );
}

function IngestKeyCard({ project }: { project: ConsoleProject }) {
  const { api } = useSession();
  const path = `/v1/console/projects/${project.id}/ingest-key`;
  const key = useResource(path, () => api.get<{ ingest_key: string }>(path));
  const [confirming, setConfirming] = useState(false);
  const rotation = useAction();
  const [rotated, setRotated] = useState(false);

  function rotate() {
    void rotation.run(async () => {
      const next = await api.post<{ ingest_key: string }>(`${path}/rotate`);
      key.mutate(() => next);
      setRotated(true);
      setConfirming(false);
    });
  }

  return (
    <section className="card" aria-labelledby="ingest-key-title">
      <h2 id="ingest-key-title" className="card-title">
        Ingest key
      </h2>
      <p className="muted">
        Agents put this key in the body of <code>POST /v1/reports</code>. It can only submit
        reports, never read them, so it is safe to ship in a SKILL.md, a prompt or client code.
      </p>
      {key.data ? (
        <div className="key-row">
          <input
            className="key-value"
            readOnly
            value={key.data.ingest_key}
            aria-label="Ingest key"
            data-testid="ingest-key"
            onFocus={(event) => event.target.select()}
          />
          <CopyButton text={key.data.ingest_key} label="Copy key" />
          <button
            type="button"
            className="button button-danger-outline"
            onClick={() => setConfirming(true)}
          >
            Rotate…
          </button>
        </div>
      ) : key.error ? (
        <ErrorNotice error={key.error} onRetry={key.reload} />
      ) : (
        <Loading />
      )}
      {rotated && (
        <p className="notice notice-success" role="status">
          Key rotated. Update every agent, SKILL.md and snippet that used the old key.
        </p>
      )}
      <ConfirmDialog
        open={confirming}
        title="Rotate the ingest key?"
        confirmLabel="Rotate key now"
        danger
        busy={rotation.busy}
        onConfirm={rotate}
        onCancel={() => {
          setConfirming(false);
          rotation.clear();
        }}
      >
        <p>
          The current key <strong>stops working at once</strong>: every agent still using it will
          get <code>401 invalid_ingest_key</code> until you give it the new key.
        </p>
        <ErrorNotice error={rotation.error} />
      </ConfirmDialog>
    </section>
  );
}

/** The project's redaction option: credentials are always redacted; this adds personal data. */
function RedactionCard({ project }: { project: ConsoleProject }) {
  const { api } = useSession();
  const path = `/v1/console/projects/${project.id}/redaction`;
  const settings = useResource(path, () => api.get<RedactionSettings>(path));
  const saving = useAction();

  async function toggle(on: boolean) {
    // The box shows the new state at once (it is disabled until saved), and goes back on failure.
    settings.mutate(() => ({ redact_personal_data: on }));
    const saved = await saving.run(async () => {
      const next = await api.patch<RedactionSettings>(path, { redact_personal_data: on });
      settings.mutate(() => next);
    });
    if (!saved) settings.mutate(() => ({ redact_personal_data: !on }));
  }

  return (
    <section className="card" aria-labelledby="redaction-title">
      <h2 id="redaction-title" className="card-title">
        Redaction
      </h2>
      <p className="muted">
        Credentials (API keys, tokens, private keys, passwords in URLs) are always replaced by{' '}
        <code>[REDACTED:kind]</code> before a report is stored.
      </p>
      {settings.data ? (
        <label className="checkbox-row">
          <input
            type="checkbox"
            checked={settings.data.redact_personal_data}
            disabled={saving.busy}
            data-testid="redact-personal-data"
            onChange={(event) => toggle(event.target.checked)}
          />{' '}
          Also redact email addresses and phone numbers
        </label>
      ) : settings.error ? (
        <ErrorNotice error={settings.error} onRetry={settings.reload} />
      ) : (
        <Loading />
      )}
      <ErrorNotice error={saving.error} />
    </section>
  );
}
