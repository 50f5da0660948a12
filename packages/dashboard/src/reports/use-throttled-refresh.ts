import { useCallback, useEffect, useRef } from 'react';

/**
 * Returns `request()`, which runs `refresh` soon, at most once per `intervalMs`. Unlike a
 * debounce (a delay that restarts on every call), a steady stream of calls cannot postpone the
 * refresh forever: the panels move every interval while reports flow, and once more after the
 * last one. A burst within `settleMs` is served by a single refresh.
 *
 * Hand-written rather than lodash's `throttle`: a dozen lines, with the React lifetime (cancel
 * on unmount, the latest `refresh` always called) that a plain function would need wrapped
 * anyway.
 */
export function useThrottledRefresh(
  refresh: () => void,
  { intervalMs, settleMs }: { intervalMs: number; settleMs: number },
): () => void {
  const refreshRef = useRef(refresh);
  refreshRef.current = refresh;
  const timer = useRef<number | undefined>(undefined);
  const lastRun = useRef(Number.NEGATIVE_INFINITY);

  useEffect(() => () => window.clearTimeout(timer.current), []);

  return useCallback(() => {
    // A refresh is already due: it starts after this call, so it will include what it reports.
    if (timer.current !== undefined) return;
    const wait = Math.max(settleMs, lastRun.current + intervalMs - Date.now());
    timer.current = window.setTimeout(() => {
      timer.current = undefined;
      lastRun.current = Date.now();
      refreshRef.current();
    }, wait);
  }, [intervalMs, settleMs]);
}
