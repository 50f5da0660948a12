import { OUTCOMES } from '@debrief/protocol';
import { OUTCOME_LABELS } from '../ui/format';

/** The colour key shared by the chart and the per-tool table. */
export function OutcomeLegend({ className = '' }: { className?: string }) {
  return (
    <ul className={`outcome-legend ${className}`.trim()}>
      {OUTCOMES.map((outcome) => (
        <li key={outcome}>
          <span className={`dot dot-${outcome}`} aria-hidden="true" />
          {OUTCOME_LABELS[outcome]}
        </li>
      ))}
    </ul>
  );
}
