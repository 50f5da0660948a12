import { useEffect, useId, useState } from 'react';
import { utcDateDaysAgo } from '../ui/format';
import { hasNarrowingFilters, type ReportFilters } from './report-filters';

const PRESETS = [
  { label: 'Today', days: 0 },
  { label: '7 days', days: 6 },
  { label: '30 days', days: 29 },
] as const;

/** Tool, source and date range. Dates are UTC days, like the API's date-only bounds. */
export function FilterBar({
  filters,
  tools,
  onChange,
}: {
  filters: ReportFilters;
  tools: string[];
  onChange(change: Partial<ReportFilters>): void;
}) {
  const id = useId();
  const [source, setSource] = useState(filters.source ?? '');
  useEffect(() => setSource(filters.source ?? ''), [filters.source]);
  const applySource = () => {
    const value = source.trim() || null;
    if (value !== filters.source) onChange({ source: value });
  };
  const toolOptions = [...new Set([...tools, ...(filters.tool_name ? [filters.tool_name] : [])])];
  const today = utcDateDaysAgo(0);
  const activePreset = PRESETS.find(
    (preset) => filters.from === utcDateDaysAgo(preset.days) && filters.to === null,
  );
  const allTime = !filters.from && !filters.to;

  return (
    <form
      className="filters"
      aria-label="Filter reports"
      onSubmit={(event) => event.preventDefault()}
    >
      <div className="field">
        <label htmlFor={`${id}-tool`}>Tool</label>
        <select
          id={`${id}-tool`}
          value={filters.tool_name ?? ''}
          onChange={(event) => onChange({ tool_name: event.target.value || null })}
        >
          <option value="">All tools</option>
          {toolOptions.map((tool) => (
            <option key={tool} value={tool}>
              {tool}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-source`}>Source</label>
        <input
          id={`${id}-source`}
          type="search"
          placeholder="Any source"
          value={source}
          onChange={(event) => setSource(event.target.value)}
          onBlur={applySource}
          // Enter applies the source. No hidden submit button for it: a keyboard user would tab
          // onto an invisible control (the form has three text-like fields, so the browser
          // does not submit it on Enter by itself).
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault();
              applySource();
            }
          }}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-from`}>From (UTC)</label>
        <input
          id={`${id}-from`}
          type="date"
          value={filters.from ?? ''}
          max={filters.to ?? today}
          onChange={(event) => onChange({ from: event.target.value || null })}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-to`}>To (UTC)</label>
        <input
          id={`${id}-to`}
          type="date"
          value={filters.to ?? ''}
          min={filters.from ?? undefined}
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
      {hasNarrowingFilters(filters) && (
        <button
          type="button"
          className="link-button filters-clear"
          onClick={() =>
            onChange({ outcome: null, tool_name: null, source: null, from: null, to: null })
          }
        >
          Clear filters
        </button>
      )}
    </form>
  );
}
