import { useCallback, useEffect, useRef, useState } from 'react';

export interface Resource<T> {
  /** The answer for the current key, or the previous key's while the current one loads. */
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** Fetch again, keeping the current data on screen until the answer arrives. */
  reload(): void;
  /** Replace the data locally (a live update), without a request. */
  mutate(update: (current: T | undefined) => T | undefined): void;
}

interface Loaded<T> {
  key: string;
  value: T;
}

/**
 * Loads `key` with `load` and reloads when the key changes. A tiny stand-in for a data-fetching
 * library, with three rules:
 * - The previous key's data stays visible while the next key loads, so filters never flash an
 *   empty page; but if the next key fails, that data goes: it answers other filters, and the
 *   page must not show it under the new ones (it shows the error and its retry instead).
 * - An answer for a key the page has moved away from is dropped.
 * - A reload never cancels the one in flight for the same key: the newest answer to arrive
 *   wins. Cancelling would starve a panel whose reloads come faster than its answers.
 */
export function useResource<T>(key: string | null, load: () => Promise<T>): Resource<T> {
  const [loaded, setLoaded] = useState<Loaded<T> | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [inFlight, setInFlight] = useState(0);
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const keyRef = useRef(key);
  keyRef.current = key;
  // Requests are numbered; an answer older than the one on screen is not shown.
  const issued = useRef(0);
  const shown = useRef(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `generation` is the reload trigger
  useEffect(() => {
    if (key === null) return;
    const request = ++issued.current;
    const current = () => keyRef.current === key && request > shown.current;
    setInFlight((n) => n + 1);
    loadRef
      .current()
      .then(
        (value) => {
          if (!current()) return;
          shown.current = request;
          setLoaded({ key, value });
          setError(null);
        },
        (failure: unknown) => {
          if (!current()) return;
          shown.current = request;
          setError(failure);
          setLoaded((previous) => (previous?.key === key ? previous : undefined));
        },
      )
      .finally(() => setInFlight((n) => n - 1));
  }, [key, generation]);

  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  const mutate = useCallback(
    (update: (current: T | undefined) => T | undefined) =>
      setLoaded((previous) => {
        if (!previous) return previous;
        const value = update(previous.value);
        return value === undefined ? undefined : { key: previous.key, value };
      }),
    [],
  );
  // Before the first request is issued, nothing is shown yet: that is loading too.
  const loading = inFlight > 0 || (key !== null && loaded === undefined && error === null);
  return { data: loaded?.value, error, loading, reload, mutate };
}
