import { type FormEvent, useState } from 'react';
import { type Action, useAction } from '../api/use-action';

export interface SecretActions<Item, Created> {
  /** What the last create answered (a new key, secret or link), shown once until dismissed. */
  created: Created | null;
  dismiss(): void;
  /** The create form's submit handler. */
  submit(event: FormEvent): void;
  creating: Action;
  /** The entry whose revocation waits for the user's confirmation. */
  revoking: Item | null;
  askRevoke(item: Item): void;
  confirmRevoke(): void;
  cancelRevoke(): void;
  revocation: Action;
  /** Either write is running: the form and the dialog wait for it. */
  busy: boolean;
}

/**
 * The writes of a list of credentials (API keys, forwarding secrets, invitation links): a
 * create whose answer carries the secret, kept until the user is done with it, and a revoke
 * that waits for a confirmation. Each succeeded write reloads the list.
 */
export function useSecretActions<Item, Created>({
  create,
  revoke,
  reload,
  reset,
}: {
  /** Sends the form as it is now. */
  create(): Promise<Created>;
  revoke(item: Item): Promise<void>;
  reload(): void;
  /** Empties the form after a create succeeded. */
  reset(): void;
}): SecretActions<Item, Created> {
  const [created, setCreated] = useState<Created | null>(null);
  const [revoking, setRevoking] = useState<Item | null>(null);
  const creating = useAction();
  const revocation = useAction();

  function submit(event: FormEvent) {
    event.preventDefault();
    void creating.run(async () => {
      setCreated(await create());
      reset();
      reload();
    });
  }

  function confirmRevoke() {
    if (revoking === null) return;
    void revocation.run(async () => {
      await revoke(revoking);
      setRevoking(null);
      reload();
    });
  }

  return {
    created,
    dismiss: () => setCreated(null),
    submit,
    creating,
    revoking,
    askRevoke: (item) => setRevoking(item),
    confirmRevoke,
    cancelRevoke: () => {
      setRevoking(null);
      revocation.clear();
    },
    revocation,
    busy: creating.busy || revocation.busy,
  };
}
