import { OUTCOME_MEANINGS, OUTCOMES, type Outcome, type ReportStats } from '@debrief/protocol';
import { formatCount, formatPercent, OUTCOME_LABELS } from '../ui/format';

/**
 * Total and one tile per outcome. They are the outcome filter: the counts are facet counts
 * (every filter but the outcome), so they stay put when one is selected.
 */
export function OutcomeTiles({
  stats,
  unavailable = false,
  selected,
  onSelect,
}: {
  stats: ReportStats | undefined;
  /** The counts could not be read (the server or its database is down): never "none yet". */
  unavailable?: boolean;
  selected: Outcome | null;
  onSelect(outcome: Outcome | null): void;
}) {
  const total = stats?.total ?? 0;
  // Without counts there is nothing to say about an outcome, least of all that it has none.
  const noCounts = unavailable ? 'unavailable' : '';
  return (
    <fieldset className="tiles">
      <legend className="sr-only">Filter by outcome</legend>
      <button
        type="button"
        className="tile tile-total"
        aria-pressed={selected === null}
        onClick={() => onSelect(null)}
        data-outcome="total"
      >
        <span className="tile-label">All reports</span>
        <span className="tile-count">{stats ? formatCount(total) : '–'}</span>
        <span className="tile-sub">{stats ? 'matching the filters' : noCounts}</span>
      </button>
      {OUTCOMES.map((outcome) => {
        const count = stats?.[outcome] ?? 0;
        return (
          <button
            key={outcome}
            type="button"
            className={`tile tile-${outcome}`}
            aria-pressed={selected === outcome}
            onClick={() => onSelect(selected === outcome ? null : outcome)}
            title={`${OUTCOME_LABELS[outcome]}: ${OUTCOME_MEANINGS[outcome]}`}
            data-outcome={outcome}
          >
            <span className="tile-label">
              <span className={`dot dot-${outcome}`} aria-hidden="true" />
              {OUTCOME_LABELS[outcome]}
            </span>
            <span className="tile-count">{stats ? formatCount(count) : '–'}</span>
            <span className="tile-sub">
              {!stats
                ? noCounts
                : total > 0
                  ? `${formatPercent(count / total)} of reports`
                  : 'none yet'}
            </span>
          </button>
        );
      })}
    </fieldset>
  );
}
