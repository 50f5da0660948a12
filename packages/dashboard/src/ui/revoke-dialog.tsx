import type { ReactNode } from 'react';
import { ConfirmDialog } from './confirm-dialog';
import { ErrorNotice } from './notice';
import type { SecretActions } from './use-secret-actions';

/**
 * The confirmation before an entry is revoked: open while one waits for it, with what revoking
 * does (`children`) and why it failed, if it did.
 */
export function RevokeDialog<Item>({
  actions,
  title,
  confirmLabel,
  children,
}: {
  actions: Pick<
    SecretActions<Item, unknown>,
    'revoking' | 'confirmRevoke' | 'cancelRevoke' | 'revocation' | 'busy'
  >;
  title: string;
  confirmLabel: string;
  children: ReactNode;
}) {
  return (
    <ConfirmDialog
      open={actions.revoking !== null}
      title={title}
      confirmLabel={confirmLabel}
      danger
      busy={actions.busy}
      onConfirm={actions.confirmRevoke}
      onCancel={actions.cancelRevoke}
    >
      {children}
      <ErrorNotice error={actions.revocation.error} />
    </ConfirmDialog>
  );
}
