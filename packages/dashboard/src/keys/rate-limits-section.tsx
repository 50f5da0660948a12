import { type FormEvent, useEffect, useState } from 'react';
import type {
  ConsoleProject,
  LimitSettings,
  ProjectLimits,
  ThrottledStats,
} from '../api/console.types';
import { useAction } from '../api/use-action';
import { useResource } from '../api/use-resource';
import { useSession } from '../session-context';
import { ErrorNotice, Loading } from '../ui/notice';

type Field = keyof LimitSettings;

/** The form's fields, in order; an empty box means the instance's default. */
const FIELDS: { name: Field; label: string; unit: string }[] = [
  { name: 'key_rate', label: 'Per key: reports per second', unit: '/s' },
  { name: 'key_burst', label: 'Per key: burst', unit: 'reports' },
  { name: 'address_rate', label: 'Per address: reports per second', unit: '/s' },
  { name: 'address_burst', label: 'Per address: burst', unit: 'reports' },
  { name: 'address_daily_share', label: 'Per address per day: share of the month', unit: '%' },
  { name: 'monthly_cap', label: 'Monthly cap for this project', unit: 'reports' },
];

const REASONS: Record<keyof ThrottledStats['by_reason'], string> = {
  key_rate: 'key rate',
  address_rate: 'address rate',
  address_daily: 'daily share',
  project_cap: 'monthly cap',
};

function defaultText(limits: ProjectLimits, name: Field, unlimitedAccount: boolean): string {
  if (name === 'monthly_cap') return 'no cap';
  // A share of an unlimited month is unlimited: a default percentage would mislead.
  if (name === 'address_daily_share' && unlimitedAccount) return 'none: no monthly quota';
  const value = limits.defaults[name];
  return value === null ? 'unlimited' : `default ${value}`;
}

function toForm(settings: LimitSettings): Record<Field, string> {
  const form = {} as Record<Field, string>;
  for (const { name } of FIELDS) form[name] = settings[name] === null ? '' : String(settings[name]);
  return form;
}

/**
 * A project's ingest limits and the submissions they refused (docs/operating.md, Limits and the
 * quota). Ingest keys are public, so these are what keeps a leaked key from taking the account's
 * month.
 */
export function RateLimitsSection({ project }: { project: ConsoleProject }) {
  const { api, session } = useSession();
  const unlimitedAccount = session.usage.limit === null;
  const base = `/v1/console/projects/${project.id}`;
  const limits = useResource(`${base}/limits`, () => api.get<ProjectLimits>(`${base}/limits`));
  const throttled = useResource(`${base}/throttled`, () =>
    api.get<ThrottledStats>(`${base}/throttled`),
  );
  const [form, setForm] = useState<Record<Field, string> | null>(null);
  const saving = useAction();
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    if (limits.data) setForm(toForm(limits.data.settings));
  }, [limits.data]);

  function save(event: FormEvent) {
    event.preventDefault();
    if (!form) return;
    setSaved(false);
    void saving.run(async () => {
      const body = Object.fromEntries(
        FIELDS.map(({ name }) => [name, form[name].trim() === '' ? null : Number(form[name])]),
      );
      const next = await api.put<ProjectLimits>(`${base}/limits`, body);
      limits.mutate(() => next);
      setSaved(true);
    });
  }

  return (
    <section className="card" aria-labelledby="rate-limits-title">
      <h2 id="rate-limits-title" className="card-title">
        Rate limits
      </h2>
      <p className="muted">
        The ingest key is public, so Debrief limits how fast one key and one address may send, how
        much of the account's monthly quota one address may store per day, and, if you set a cap,
        how much of it this project may take. Leave a box empty for the instance's default.
      </p>
      {limits.error ? (
        <ErrorNotice error={limits.error} onRetry={limits.reload} />
      ) : !limits.data || !form ? (
        <Loading />
      ) : (
        <form className="limits-form" onSubmit={save} aria-label="Rate limits">
          <div className="limits-grid">
            {FIELDS.map(({ name, label, unit }) => (
              <label key={name} className="field">
                <span>{label}</span>
                <span className="limits-input">
                  <input
                    name={name}
                    type="number"
                    min={name === 'monthly_cap' ? 0 : 1}
                    max={name === 'address_daily_share' ? 100 : undefined}
                    step={1}
                    inputMode="numeric"
                    placeholder={defaultText(limits.data!, name, unlimitedAccount)}
                    value={form[name]}
                    onChange={(event) => {
                      setSaved(false);
                      setForm({ ...form, [name]: event.target.value });
                    }}
                  />
                  <span className="muted small">{unit}</span>
                </span>
              </label>
            ))}
          </div>
          <p className="muted small" data-testid="limits-summary">
            Now: one address may store{' '}
            {limits.data.address_daily_limit === null
              ? 'any number of'
              : `${limits.data.address_daily_limit}`}{' '}
            reports a day
            {limits.data.address_daily_limit === null && unlimitedAccount
              ? ' (the account has no monthly quota, so there is no share of it to limit)'
              : ''}
            ; this project stored {limits.data.month_used} in {limits.data.month}
            {limits.data.settings.monthly_cap !== null
              ? ` of its cap of ${limits.data.settings.monthly_cap}`
              : ''}
            .
          </p>
          <div className="key-row">
            <button type="submit" className="button button-primary" disabled={saving.busy}>
              Save limits
            </button>
            {saved && (
              <span className="notice notice-success" role="status">
                Saved. The new limits apply within seconds.
              </span>
            )}
          </div>
          <ErrorNotice error={saving.error} />
        </form>
      )}

      <h3 className="card-subtitle">Throttled in the last 7 days</h3>
      {throttled.error ? (
        <ErrorNotice error={throttled.error} onRetry={throttled.reload} />
      ) : !throttled.data ? (
        <Loading />
      ) : throttled.data.total === 0 ? (
        <p className="muted empty-inline" data-testid="throttled-total">
          No submission was refused.
        </p>
      ) : (
        <>
          <p data-testid="throttled-total">
            <strong>{throttled.data.total}</strong> refused:{' '}
            {Object.entries(throttled.data.by_reason)
              .filter(([, n]) => n > 0)
              .map(([reason, n]) => `${n} ${REASONS[reason as keyof typeof REASONS]}`)
              .join(', ')}
            .
          </p>
          <div className="table-scroll">
            <table className="table throttled-table">
              <thead>
                <tr>
                  <th scope="col">Address</th>
                  <th scope="col" className="num">
                    Refused
                  </th>
                  <th scope="col">Last day</th>
                </tr>
              </thead>
              <tbody>
                {throttled.data.top_addresses.map((row) => (
                  <tr key={row.address}>
                    <th scope="row">
                      <code>{row.address}</code>
                    </th>
                    <td className="num">{row.count}</td>
                    <td>{row.last_day}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      <button type="button" className="button button-small" onClick={() => throttled.reload()}>
        Refresh
      </button>
    </section>
  );
}
