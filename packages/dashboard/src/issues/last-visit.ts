import { useState } from 'react';

/**
 * "New since your last visit": the time this user last opened a project's Issues view, kept
 * in the browser (localStorage, per account and project) rather than on the server — a
 * convenience of one browser that needs no migration and no write per page view.
 *
 * A visit is a browser tab's session (sessionStorage holds its baseline): opening an issue and
 * coming back, or reloading, keeps the same markers instead of clearing them on every
 * navigation. The first visit ever has nothing to compare with, so its baseline is its start:
 * what arrives while it is open is new.
 *
 * The API's times are whole seconds, so the baseline is cut to its second and an issue is new
 * when first seen at or after it (`isNewSince`): one seen in the very second the visit began
 * counts as new rather than being missed.
 */
export function useLastVisit(accountId: string, projectId: string): string {
  const key = `debrief:last-visit:${accountId}:${projectId}`;
  const [baseline] = useState(() => {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const ofThisTab = read(window.sessionStorage, key);
    if (ofThisTab) return ofThisTab;
    const previous = read(window.localStorage, key) ?? now;
    write(window.sessionStorage, key, previous);
    write(window.localStorage, key, now);
    return previous;
  });
  return baseline;
}

function read(storage: Storage, key: string): string | null {
  try {
    return storage.getItem(key);
  } catch {
    return null; // storage disabled: nothing older is marked new
  }
}

function write(storage: Storage, key: string, value: string): void {
  try {
    storage.setItem(key, value);
  } catch {
    // storage disabled or full: the markers are only less precise
  }
}

export function isNewSince(firstSeen: string, baseline: string): boolean {
  return Date.parse(firstSeen) >= Date.parse(baseline);
}
