import { useEffect, useState } from 'react';

/**
 * "New since your last visit": when this user last left a project's Issues view, kept in the
 * browser's localStorage (per account and project) rather than on the server — it is a
 * convenience of one browser, and needs no migration or write on every page view.
 *
 * The time read at mount stays for the whole visit (so the markers do not vanish while the page
 * is open); the new time is written when the view is left or the tab is closed.
 */
export function useLastVisit(accountId: string, projectId: string): string | null {
  const key = `debrief:last-visit:${accountId}:${projectId}`;
  const [previous] = useState(() => read(key));
  useEffect(() => {
    const save = () => write(key, new Date().toISOString());
    window.addEventListener('pagehide', save);
    return () => {
      window.removeEventListener('pagehide', save);
      save();
    };
  }, [key]);
  return previous;
}

function read(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null; // storage disabled: nothing is marked new
  }
}

function write(key: string, value: string): void {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // storage disabled or full: the markers simply stay
  }
}
