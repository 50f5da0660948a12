import { useCallback, useState } from 'react';

export interface Action {
  /** True while the action runs: its controls are disabled. */
  busy: boolean;
  /** What the last run failed with, shown under its form; cleared when it runs again. */
  error: unknown;
  /** Runs `work`, keeping `busy` and `error`; resolves whether it succeeded. */
  run(work: () => Promise<void>): Promise<boolean>;
  /** Forgets the failure (its dialog was cancelled). */
  clear(): void;
}

/**
 * A write the user started (create, revoke, rotate, save): busy while it runs, its failure
 * kept for an ErrorNotice. One place for what every form did by hand with try/catch/finally.
 */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
      return true;
    } catch (failure) {
      setError(failure);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  const clear = useCallback(() => setError(null), []);
  return { busy, error, run, clear };
}
