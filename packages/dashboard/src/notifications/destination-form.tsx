import {
  type CreateDestinationBody,
  type Destination,
  type DestinationType,
  NOTIFICATION_TYPES,
  type NotificationType,
  OUTCOMES,
} from '@debrief/protocol';
import { type FormEvent, useState } from 'react';

/** What each event means, in the words of the form. */
export const EVENT_LABELS: Record<NotificationType, string> = {
  'issue.created': 'New issue',
  'issue.regressed': 'Regressed issue',
  'issue.spiking': 'Spiking issue',
  'report.created': 'Every report (at most one message a minute)',
  'quota.warning': 'Quota at 80 %',
  'quota.reached': 'Quota reached',
  'ingest.throttled': 'Reports refused (throttled)',
  'digest.daily': 'Daily digest',
};

const TYPE_LABELS: Record<DestinationType, string> = {
  webhook: 'Webhook (signed)',
  slack: 'Slack incoming webhook',
  email: 'Email',
};

export type DestinationFields = Omit<CreateDestinationBody, 'type'> & { type: DestinationType };

function initial(existing: Destination | null): DestinationFields {
  return {
    type: existing?.type ?? 'webhook',
    name: existing?.name ?? undefined,
    url: existing?.url ?? undefined,
    to: existing?.to ?? undefined,
    events: existing?.events ?? ['issue.created', 'issue.regressed'],
    filter: existing?.filter ?? {},
    spike: existing?.spike ?? { min_reports: 10, factor: 5 },
    digest_hour: existing?.digest_hour ?? 9,
  };
}

/**
 * Adds or edits a destination: where (webhook or Slack URL, email addresses), which events,
 * the filter of reports, the spike rule and the digest hour. `onSubmit` gets the API's body.
 */
export function DestinationForm({
  existing,
  busy,
  onSubmit,
  onCancel,
}: {
  existing: Destination | null;
  busy: boolean;
  onSubmit(fields: DestinationFields): void;
  onCancel?(): void;
}) {
  const [fields, setFields] = useState<DestinationFields>(() => initial(existing));
  const [to, setTo] = useState((existing?.to ?? []).join(', '));
  const set = (patch: Partial<DestinationFields>) => setFields((f) => ({ ...f, ...patch }));
  const events = new Set(fields.events);
  const prefix = existing ? `edit-${existing.id}` : 'new';

  function submit(event: FormEvent) {
    event.preventDefault();
    const filter = Object.fromEntries(
      Object.entries(fields.filter ?? {}).filter(([, v]) => v !== undefined && v !== ''),
    );
    onSubmit({
      ...fields,
      url: fields.type === 'email' ? undefined : fields.url?.trim(),
      to:
        fields.type === 'email'
          ? to
              .split(/[,\s]+/)
              .map((a) => a.trim())
              .filter(Boolean)
          : undefined,
      name: fields.name?.trim() || undefined,
      filter,
      spike: events.has('issue.spiking') ? fields.spike : undefined,
      digest_hour: events.has('digest.daily') ? fields.digest_hour : undefined,
    });
  }

  return (
    <form
      className="form destination-form"
      onSubmit={submit}
      aria-label={existing ? 'Edit destination' : 'Add a destination'}
    >
      <div className="inline-form">
        <label className="field">
          <span>Type</span>
          <select
            name={`${prefix}-type`}
            value={fields.type}
            disabled={existing !== null}
            onChange={(e) => set({ type: e.target.value as DestinationType })}
          >
            {(Object.keys(TYPE_LABELS) as DestinationType[]).map((type) => (
              <option key={type} value={type}>
                {TYPE_LABELS[type]}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Name</span>
          <input
            name={`${prefix}-name`}
            maxLength={200}
            placeholder="optional"
            value={fields.name ?? ''}
            onChange={(e) => set({ name: e.target.value })}
          />
        </label>
        {fields.type === 'email' ? (
          <label className="field field-grow">
            <span>Send to</span>
            <input
              name={`${prefix}-to`}
              required
              placeholder="dev@example.com, oncall@example.com"
              value={to}
              onChange={(e) => setTo(e.target.value)}
            />
          </label>
        ) : (
          <label className="field field-grow">
            <span>{fields.type === 'slack' ? 'Slack webhook URL' : 'Webhook URL'}</span>
            <input
              name={`${prefix}-url`}
              type="url"
              required
              placeholder={
                fields.type === 'slack'
                  ? 'https://hooks.slack.com/services/…'
                  : 'https://example.com/debrief-webhook'
              }
              value={fields.url ?? ''}
              onChange={(e) => set({ url: e.target.value })}
            />
          </label>
        )}
      </div>
      <fieldset className="event-choices">
        <legend>Events</legend>
        {NOTIFICATION_TYPES.map((type) => (
          <label key={type} className="checkbox-row">
            <input
              type="checkbox"
              name={`${prefix}-event-${type}`}
              checked={events.has(type)}
              onChange={(e) =>
                set({
                  events: e.target.checked
                    ? [...fields.events, type]
                    : fields.events.filter((t) => t !== type),
                })
              }
            />{' '}
            {EVENT_LABELS[type]} <code className="small muted">{type}</code>
          </label>
        ))}
      </fieldset>
      <fieldset className="inline-form">
        <legend>Only reports with (optional)</legend>
        <label className="field">
          <span>Outcome</span>
          <select
            name={`${prefix}-filter-outcome`}
            value={fields.filter?.outcome ?? ''}
            onChange={(e) =>
              set({
                filter: {
                  ...fields.filter,
                  outcome: (e.target.value || undefined) as (typeof OUTCOMES)[number] | undefined,
                },
              })
            }
          >
            <option value="">any</option>
            {OUTCOMES.map((o) => (
              <option key={o} value={o}>
                {o}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Tool name</span>
          <input
            name={`${prefix}-filter-tool`}
            value={fields.filter?.tool_name ?? ''}
            onChange={(e) =>
              set({ filter: { ...fields.filter, tool_name: e.target.value || undefined } })
            }
          />
        </label>
        <label className="field">
          <span>Source</span>
          <input
            name={`${prefix}-filter-source`}
            value={fields.filter?.source ?? ''}
            onChange={(e) =>
              set({ filter: { ...fields.filter, source: e.target.value || undefined } })
            }
          />
        </label>
      </fieldset>
      {events.has('issue.spiking') && (
        <fieldset className="inline-form">
          <legend>
            Spiking: at least N reports in an hour, and K × its hourly average of the last 7 days
          </legend>
          <label className="field">
            <span>N (reports in the hour)</span>
            <input
              name={`${prefix}-spike-n`}
              type="number"
              min={1}
              value={fields.spike?.min_reports ?? 10}
              onChange={(e) =>
                set({
                  spike: { factor: fields.spike?.factor ?? 5, min_reports: Number(e.target.value) },
                })
              }
            />
          </label>
          <label className="field">
            <span>K (times the average)</span>
            <input
              name={`${prefix}-spike-k`}
              type="number"
              min={1}
              step="0.5"
              value={fields.spike?.factor ?? 5}
              onChange={(e) =>
                set({
                  spike: {
                    min_reports: fields.spike?.min_reports ?? 10,
                    factor: Number(e.target.value),
                  },
                })
              }
            />
          </label>
        </fieldset>
      )}
      {events.has('digest.daily') && (
        <label className="field">
          <span>Digest hour (UTC)</span>
          <input
            name={`${prefix}-digest-hour`}
            type="number"
            min={0}
            max={23}
            value={fields.digest_hour ?? 9}
            onChange={(e) => set({ digest_hour: Number(e.target.value) })}
          />
        </label>
      )}
      <div className="dialog-actions">
        <button
          type="submit"
          className="button button-primary"
          disabled={busy || fields.events.length === 0}
        >
          {existing ? 'Save destination' : 'Add destination'}
        </button>
        {onCancel && (
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
