import { useState } from 'react';
import type { CreatedInvitation, Invitation } from '../api/console.types';
import { useResource } from '../api/use-resource';
import { useSession } from '../session-context';
import { CreateForm } from '../ui/create-form';
import { CredentialTable } from '../ui/credential-table';
import { RelativeTime } from '../ui/relative-time';
import { RevokeDialog } from '../ui/revoke-dialog';
import { ShownOnce } from '../ui/shown-once';
import { useSecretActions } from '../ui/use-secret-actions';
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
  const actions = useSecretActions<Invitation, CreatedInvitation>({
    create: () => {
      const trimmed = email.trim();
      return api.post<CreatedInvitation>('/v1/console/invitations', {
        ...(trimmed ? { email: trimmed } : {}),
        expires_in_hours: hours,
      });
    },
    revoke: (invitation) => api.del(`/v1/console/invitations/${invitation.id}`),
    reload: invitations.reload,
    reset: () => setEmail(''),
  });

  return (
    <section className="card" aria-labelledby="invitations-title">
      <h2 id="invitations-title" className="card-title">
        Invite someone
      </h2>
      <p className="muted">
        Each link admits one account and then stops working. Send it privately: whoever holds it can
        sign up (only with the email below, when you give one).
      </p>
      <CreateForm actions={actions} submitLabel="Create invitation link">
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
      </CreateForm>

      {actions.created && (
        <ShownOnce
          value={actions.created.url}
          label="New invitation link"
          testId="new-invitation-link"
          copyLabel="Copy link"
          onDone={actions.dismiss}
        >
          <strong>Copy the link now.</strong> It is shown only this once; Debrief stores only a hash
          of it.
        </ShownOnce>
      )}

      <CredentialTable
        resource={invitations}
        items={invitations.data ?? []}
        empty="No invitations yet."
        columns={[
          {
            header: 'For',
            cell: (invitation) => invitation.email ?? <span className="muted">anyone</span>,
          },
          {
            header: 'Status',
            cell: (invitation) => (
              <span className="invitation-status" data-status={invitation.status}>
                {STATUS_LABEL[invitation.status]}
              </span>
            ),
          },
          { header: 'Created', cell: (invitation) => <RelativeTime iso={invitation.created_at} /> },
          { header: 'Expires', cell: (invitation) => <Expiry invitation={invitation} /> },
        ]}
        revokeLabel={(invitation) =>
          invitation.status === 'pending'
            ? `Revoke the invitation for ${invitation.email ?? 'anyone'}`
            : null
        }
        onRevoke={actions.askRevoke}
        rowData={(invitation) => ({ 'data-invitation-id': invitation.id })}
      />

      <RevokeDialog
        actions={actions}
        title="Revoke this invitation?"
        confirmLabel="Revoke invitation"
      >
        <p>The link stops working at once. Accounts already made with it stay.</p>
      </RevokeDialog>
    </section>
  );
}

/** When a link stops admitting anyone; a used or revoked one has no such date to show. */
function Expiry({ invitation }: { invitation: Invitation }) {
  return invitation.status === 'pending' || invitation.status === 'expired' ? (
    <RelativeTime iso={invitation.expires_at} />
  ) : (
    <span className="muted">—</span>
  );
}
