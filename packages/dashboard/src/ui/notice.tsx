import type { ReactNode } from 'react';
import { errorText } from '../api/api-client';

export function ErrorNotice({ error, children }: { error: unknown; children?: ReactNode }) {
  if (!error) return null;
  return (
    <div className="notice notice-error" role="alert">
      <p>{errorText(error)}</p>
      {children}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="loading" aria-live="polite">
      {label}
    </p>
  );
}
