import { useCallback, useEffect, useRef, useState } from 'react';

export interface Resource<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** Fetch again, keeping the current data on screen until the answer arrives. */
  reload(): void;
  /** Replace the data locally (a live update), without a request. */
  mutate(update: (current: T | undefined) => T | undefined): void;
}

/**
 * Loads `key` with `load` and reloads when the key changes. A tiny stand-in for a data-fetching
 * library: answers that arrive after the key moved on are dropped, and the previous data stays
 * visible while the next loads, so filters never flash an empty page.
 */
export function useResource<T>(key: string | null, load: () => Promise<T>): Resource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(key !== null);
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  // biome-ignore lint/correctness/useExhaustiveDependencies: `generation` is the reload trigger
  useEffect(() => {
    if (key === null) return;
    let current = true;
    setLoading(true);
    loadRef.current().then(
      (value) => {
        if (!current) return;
        setData(value);
        setError(null);
        setLoading(false);
      },
      (failure: unknown) => {
        if (!current) return;
        setError(failure);
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [key, generation]);

  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  const mutate = useCallback(
    (update: (current: T | undefined) => T | undefined) => setData((value) => update(value)),
    [],
  );
  return { data, error, loading, reload, mutate };
}
