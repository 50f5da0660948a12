import type { ReactNode } from 'react';
import { errorText } from '../api/api-client';

/** An error, and a Retry button when the failed action can be tried again. */
export function ErrorNotice({
  error,
  onRetry,
  children,
}: {
  error: unknown;
  onRetry?: () => void;
  children?: ReactNode;
}) {
  if (!error) return null;
  return (
    <div className="notice notice-error" role="alert">
      <p>{errorText(error)}</p>
      {children}
      {onRetry && (
        <button type="button" className="button button-small" onClick={onRetry}>
          Retry
        </button>
      )}
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
