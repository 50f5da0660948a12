import { type FormEvent, useState } from 'react';
import type { CreatedInvitation, Invitation } from '../api/console.types';
import { useAction } from '../api/use-action';
import { useResource } from '../api/use-resource';
import { useSession } from '../session-context';
import { ConfirmDialog } from '../ui/confirm-dialog';
import { ErrorNotice, Loading } from '../ui/notice';
import { RelativeTime } from '../ui/relative-time';
import { ShownOnce } from '../ui/shown-once';
import { useTitle } from '../ui/use-title';

const EXPIRY_CHOICES = [
  { hours: 24, label: '1 day' },
  { hours: 7 * 24, label: '7 days' },
  { hours: 30 * 24, label: '30 days' },
];

const STATUS_LABEL: Record<Invitation['status'], string> = {
  pending: 'Pending',
  used: 'Used',
  expired: 'Expired',
  revoked: 'Revoked',
};

/**
 * The operator's invitations: one-time sign-up links, the only way in once the instance has
 * its operator (unless `SIGNUPS=open`). Other accounts get a short note instead.
 */
export function InvitationsPage() {
  useTitle('Invitations');
  const { session } = useSession();
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Invitations</h1>
          <p className="muted">
            One-time links that let one more person create an account on this instance.
          </p>
        </div>
      </div>
      {session.account.operator ? (
        <InvitationsSection />
      ) : (
        <section className="card">
          <p>Only the operator of this instance (its first account) can invite people.</p>
        </section>
      )}
    </>
  );
}

function InvitationsSection() {
  const { api } = useSession();
  const invitations = useResource('invitations', () =>
    api.get<Invitation[]>('/v1/console/invitations'),
  );
  const [email, setEmail] = useState('');
  const [hours, setHours] = useState(7 * 24);
  const [created, setCreated] = useState<CreatedInvitation | null>(null);
  const [revoking, setRevoking] = useState<Invitation | null>(null);
  const creating = useAction();
  const revocation = useAction();
  const busy = creating.busy || revocation.busy;

  function create(event: FormEvent) {
    event.preventDefault();
    void creating.run(async () => {
      const trimmed = email.trim();
      const invitation = await api.post<CreatedInvitation>('/v1/console/invitations', {
        ...(trimmed ? { email: trimmed } : {}),
        expires_in_hours: hours,
      });
      setCreated(invitation);
      setEmail('');
      invitations.reload();
    });
  }

  function revoke() {
    if (!revoking) return;
    void revocation.run(async () => {
      await api.del(`/v1/console/invitations/${revoking.id}`);
      setRevoking(null);
      invitations.reload();
    });
  }

  return (
    <section className="card" aria-labelledby="invitations-title">
      <h2 id="invitations-title" className="card-title">
        Invite someone
      </h2>
      <p className="muted">
        Each link admits one account and then stops working. Send it privately: whoever holds it can
        sign up (only with the email below, when you give one).
      </p>
      <form className="inline-form" onSubmit={create}>
        <label className="field field-grow">
          <span>Email (optional)</span>
          <input
            type="email"
            name="invite-email"
            placeholder="e.g. colleague@example.com"
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </label>
        <label className="field">
          <span>Expires after</span>
          <select
            name="invite-expiry"
            value={hours}
            onChange={(event) => setHours(Number(event.target.value))}
          >
            {EXPIRY_CHOICES.map((choice) => (
              <option key={choice.hours} value={choice.hours}>
                {choice.label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="button button-primary" disabled={busy}>
          Create invitation link
        </button>
      </form>
      <ErrorNotice error={creating.error} />

      {created && (
        <ShownOnce
          value={created.url}
          label="New invitation link"
          testId="new-invitation-link"
          copyLabel="Copy link"
          onDone={() => setCreated(null)}
        >
          <strong>Copy the link now.</strong> It is shown only this once; Debrief stores only a hash
          of it.
        </ShownOnce>
      )}

      {invitations.error ? (
        <ErrorNotice error={invitations.error} onRetry={invitations.reload} />
      ) : !invitations.data ? (
        <Loading />
      ) : invitations.data.length === 0 ? (
        <p className="muted empty-inline">No invitations yet.</p>
      ) : (
        <div className="table-scroll">
          <table className="table keys-table">
            <thead>
              <tr>
                <th scope="col">For</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {invitations.data.map((invitation) => (
                <tr key={invitation.id} data-invitation-id={invitation.id}>
                  <th scope="row">{invitation.email ?? <span className="muted">anyone</span>}</th>
                  <td>
                    <span className="invitation-status" data-status={invitation.status}>
                      {STATUS_LABEL[invitation.status]}
                    </span>
                  </td>
                  <td>
                    <RelativeTime iso={invitation.created_at} />
                  </td>
                  <td>
                    {invitation.status === 'pending' || invitation.status === 'expired' ? (
                      <RelativeTime iso={invitation.expires_at} />
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                  <td className="actions">
                    {invitation.status === 'pending' && (
                      <button
                        type="button"
                        className="button button-small button-danger-outline"
                        onClick={() => setRevoking(invitation)}
                        aria-label={`Revoke the invitation for ${invitation.email ?? 'anyone'}`}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this invitation?"
        confirmLabel="Revoke invitation"
        danger
        busy={busy}
        onConfirm={revoke}
        onCancel={() => {
          setRevoking(null);
          revocation.clear();
        }}
      >
        <p>The link stops working at once. Accounts already made with it stay.</p>
        <ErrorNotice error={revocation.error} />
      </ConfirmDialog>
    </section>
  );
}
