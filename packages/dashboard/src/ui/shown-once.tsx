import type { ReactNode } from 'react';
import { CopyButton } from './copy-button';

/**
 * A secret shown only once (a new API key, an invitation link): read-only, selected on focus,
 * with a copy button and Done. Debrief keeps only a hash, so this is the one chance to copy it.
 */
export function ShownOnce({
  children,
  value,
  label,
  testId,
  copyLabel,
  onDone,
}: {
  /** What the user must do, in a sentence or two. */
  children: ReactNode;
  value: string;
  /** Accessible name of the field. */
  label: string;
  testId: string;
  copyLabel: string;
  onDone(): void;
}) {
  return (
    <div className="secret" role="status" aria-live="polite">
      <p>{children}</p>
      <div className="key-row">
        <input
          className="key-value"
          readOnly
          value={value}
          aria-label={label}
          data-testid={testId}
          onFocus={(event) => event.target.select()}
        />
        <CopyButton text={value} label={copyLabel} />
        <button type="button" className="button" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
