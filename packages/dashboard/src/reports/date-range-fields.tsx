import { useId } from 'react';
import { utcDateDaysAgo } from '../ui/format';

const PRESETS = [
  { label: 'Today', days: 0 },
  { label: '7 days', days: 6 },
  { label: '30 days', days: 29 },
] as const;

/** A date range as the views keep it in the URL: UTC days, both inclusive, null = open. */
export interface DateRange {
  /** YYYY-MM-DD (UTC), inclusive */
  from: string | null;
  /** YYYY-MM-DD (UTC), inclusive: the whole day */
  to: string | null;
}

/**
 * From and To (UTC days, like the API's date-only bounds) with the Today / 7 days / 30 days /
 * All time presets: the reports view's filter bar and the Issues view both use it, inside their
 * own form, so the two read a range the same way.
 */
export function DateRangeFields({
  range,
  onChange,
}: {
  range: DateRange;
  onChange(change: Partial<DateRange>): void;
}) {
  const id = useId();
  const today = utcDateDaysAgo(0);
  const activePreset = PRESETS.find(
    (preset) => range.from === utcDateDaysAgo(preset.days) && range.to === null,
  );
  const allTime = !range.from && !range.to;
  return (
    <>
      <div className="field">
        <label htmlFor={`${id}-from`}>From (UTC)</label>
        <input
          id={`${id}-from`}
          type="date"
          value={range.from ?? ''}
          max={range.to ?? today}
          onChange={(event) => onChange({ from: event.target.value || null })}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-to`}>To (UTC)</label>
        <input
          id={`${id}-to`}
          type="date"
          value={range.to ?? ''}
          min={range.from ?? undefined}
          onChange={(event) => onChange({ to: event.target.value || null })}
        />
      </div>
      <fieldset className="presets">
        <legend className="sr-only">Date range</legend>
        {PRESETS.map((preset) => (
          <button
            key={preset.label}
            type="button"
            className="chip"
            aria-pressed={activePreset === preset}
            onClick={() => onChange({ from: utcDateDaysAgo(preset.days), to: null })}
          >
            {preset.label}
          </button>
        ))}
        <button
          type="button"
          className="chip"
          aria-pressed={allTime}
          onClick={() => onChange({ from: null, to: null })}
        >
          All time
        </button>
      </fieldset>
    </>
  );
}
