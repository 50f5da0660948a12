import { useId } from 'react';
import type { SourcesSummary } from '../api/console.types';
import { formatCount } from '../ui/format';
import { ToolSelect } from '../ui/tool-select';
import { DateRangeFields } from './date-range-fields';
import { hasNarrowingFilters, type ReportFilters } from './report-filters';

/**
 * Tool, source and date range (DateRangeFields, shared with the Issues view). Tools and
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

  return (
    // Every control applies at once: there is nothing to submit.
    <form
      className="filters"
      aria-label="Filter reports"
      onSubmit={(event) => event.preventDefault()}
    >
      <ToolSelect
        id={`${id}-tool`}
        value={filters.tool_name}
        tools={toolOptions}
        onChange={(tool_name) => onChange({ tool_name })}
      />
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
      <DateRangeFields range={filters} onChange={onChange} />
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
