import { useId } from 'react';
import type { SourcesSummary } from '../api/console.types';
import { formatCount, utcDateDaysAgo } from '../ui/format';
import { hasNarrowingFilters, type ReportFilters } from './report-filters';

const PRESETS = [
  { label: 'Today', days: 0 },
  { label: '7 days', days: 6 },
  { label: '30 days', days: 29 },
] as const;

/**
 * Tool, source and date range. Dates are UTC days, like the API's date-only bounds. Tools and
 * sources are chosen from what the project has received (a source is matched exactly, so a
 * typed one would miss on case alone); a value from the URL that the list lacks stays offered.
 */
export function FilterBar({
  filters,
  tools,
  sources,
  onChange,
}: {
  filters: ReportFilters;
  tools: string[];
  sources: SourcesSummary | undefined;
  onChange(change: Partial<ReportFilters>): void;
}) {
  const id = useId();
  const toolOptions = [...new Set([...tools, ...(filters.tool_name ? [filters.tool_name] : [])])];
  const sourceOptions = sources?.sources ?? [];
  const selectedSourceMissing =
    filters.source !== null && !sourceOptions.some((item) => item.source === filters.source);
  const today = utcDateDaysAgo(0);
  const activePreset = PRESETS.find(
    (preset) => filters.from === utcDateDaysAgo(preset.days) && filters.to === null,
  );
  const allTime = !filters.from && !filters.to;

  return (
    // Every control applies at once: there is nothing to submit.
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
        <select
          id={`${id}-source`}
          value={filters.source ?? ''}
          onChange={(event) => onChange({ source: event.target.value || null })}
        >
          <option value="">Any source</option>
          {sourceOptions.map((item) => (
            <option key={item.source} value={item.source}>
              {item.source} ({formatCount(item.total)})
            </option>
          ))}
          {selectedSourceMissing && <option value={filters.source ?? ''}>{filters.source}</option>}
          {sources?.truncated && (
            <option disabled value="-">
              Only the {sourceOptions.length} busiest sources are listed
            </option>
          )}
        </select>
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
