import type { ReactNode } from 'react';
import { ErrorNotice } from './notice';
import type { SecretActions } from './use-secret-actions';

/** A one-line create form (its fields, then the submit button), and the create's error under it. */
export function CreateForm({
  actions,
  submitLabel,
  ready = true,
  children,
}: {
  actions: Pick<SecretActions<unknown, unknown>, 'submit' | 'creating' | 'busy'>;
  submitLabel: string;
  /** The fields hold enough to send (a required name is filled in). */
  ready?: boolean;
  children: ReactNode;
}) {
  return (
    <>
      <form className="inline-form" onSubmit={actions.submit}>
        {children}
        <button type="submit" className="button button-primary" disabled={actions.busy || !ready}>
          {submitLabel}
        </button>
      </form>
      <ErrorNotice error={actions.creating.error} />
    </>
  );
}

/** The required name of a new entry, by which the list and its Revoke button call it. */
export function NameField({
  label,
  name,
  placeholder,
  value,
  onChange,
}: {
  label: string;
  name: string;
  placeholder: string;
  value: string;
  onChange(value: string): void;
}) {
  return (
    <label className="field field-grow">
      <span>{label}</span>
      <input
        name={name}
        required
        maxLength={100}
        placeholder={placeholder}
        value={value}
        onChange={(event) => onChange(event.target.value)}
      />
    </label>
  );
}
