import { useEffect } from 'react';

/** "Reports · Weather API · Debrief": tabs and history entries say where they lead. */
export function useTitle(...parts: string[]): void {
  const title = [...parts, 'Debrief'].join(' · ');
  useEffect(() => {
    document.title = title;
  }, [title]);
}
