import { OUTCOMES, type Outcome } from '@debrief/protocol';
import { type RefObject, useEffect, useId, useRef, useState } from 'react';
import { OUTCOME_LABELS } from '../ui/format';
import { ToolSelect } from '../ui/tool-select';
import { useDebounced } from '../ui/use-debounced';
import { type IssueFilters, KIND_TABS, SORT_LABELS } from './issue-filters';

/** Typing pauses this long before the search goes to the server. */
const SEARCH_DELAY_MS = 250;

/**
 * The Issues view's filters: the kind (problems by default), a title search that asks the API
 * about every issue of the project, the outcome and tool filters, and the order.
 */
export function IssuesToolbar({
  tools,
  filters,
  ranged,
  searchRef,
  onChange,
}: {
  /** The project's tool names (the filter's choices). */
  tools: string[];
  filters: IssueFilters;
  ranged: boolean;
  searchRef: RefObject<HTMLInputElement | null>;
  onChange(change: Partial<IssueFilters>, options?: { replace?: boolean }): void;
}) {
  const id = useId();
  // A tool named in the URL stays offered, whether or not the project has it.
  const toolNames = [
    ...new Set([...tools, ...(filters.tool_name ? [filters.tool_name] : [])]),
  ].sort((a, b) => a.localeCompare(b));

  const [search, setSearch] = useState(filters.q);
  const settled = useDebounced(search, SEARCH_DELAY_MS);
  // What this box last put in the URL: a different `q` there came from elsewhere (back button).
  const pushed = useRef(filters.q);
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a settled search is sent
  useEffect(() => {
    const q = settled.trim();
    if (q === filters.q) return;
    pushed.current = q;
    onChange({ q }, { replace: true });
  }, [settled]);
  useEffect(() => {
    if (filters.q !== pushed.current) {
      pushed.current = filters.q;
      setSearch(filters.q);
    }
  }, [filters.q]);

  return (
    <>
      <nav className="status-tabs kind-tabs" aria-label="Issue kind">
        {KIND_TABS.map((tab) => (
          <button
            key={tab.id}
            type="button"
            className="status-tab"
            aria-pressed={filters.kind === tab.id}
            onClick={() => onChange({ kind: tab.id })}
          >
            {tab.label}
          </button>
        ))}
      </nav>
      <div className="issues-toolbar">
        <label className="field field-grow">
          <span>Search titles</span>
          <input
            ref={searchRef}
            type="search"
            value={search}
            maxLength={200}
            placeholder="Every issue of this project, by title"
            onChange={(event) => setSearch(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Escape') event.currentTarget.blur();
              if (event.key === 'Enter') {
                pushed.current = search.trim();
                onChange({ q: search.trim() }, { replace: true });
              }
            }}
          />
        </label>
        <div className="field">
          <label htmlFor={`${id}-outcome`}>Outcome</label>
          <select
            id={`${id}-outcome`}
            value={filters.outcome ?? ''}
            onChange={(event) => onChange({ outcome: (event.target.value || null) as Outcome })}
          >
            <option value="">Any outcome</option>
            {OUTCOMES.map((outcome) => (
              <option key={outcome} value={outcome}>
                {OUTCOME_LABELS[outcome]}
              </option>
            ))}
          </select>
        </div>
        <ToolSelect
          id={`${id}-tool`}
          value={filters.tool_name}
          tools={toolNames}
          onChange={(tool_name) => onChange({ tool_name })}
        />
        <div className="field">
          <label htmlFor={`${id}-sort`}>Sort</label>
          <select
            id={`${id}-sort`}
            value={filters.sort}
            onChange={(event) => onChange({ sort: event.target.value as keyof typeof SORT_LABELS })}
          >
            {Object.entries(SORT_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {value === 'count' && ranged ? `${label} in range` : label}
              </option>
            ))}
          </select>
        </div>
      </div>
    </>
  );
}
