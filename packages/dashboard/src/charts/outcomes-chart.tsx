import { OUTCOMES } from '@debrief/protocol';
import { useRef } from 'react';
import type { TimeseriesDay } from '../api/console.types';
import { formatCount, formatDay, OUTCOME_LABELS } from '../ui/format';
import { OutcomeLegend } from './outcome-legend';
import { useWidth } from './use-width';

const HEIGHT = 180;
const MARGIN = { top: 10, right: 4, bottom: 24, left: 34 };
/** About half the width of a day label ("Nov 12") at the axis' 11 px. */
const LABEL_HALF_WIDTH = 22;

/** The smallest 1-2-5 step at or above `value`, so the axis reads in round numbers. */
function niceMax(value: number): number {
  if (value <= 4) return 4;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= value) return step * magnitude;
  return 10 * magnitude;
}

const dayTotal = (day: TimeseriesDay) => OUTCOMES.reduce((sum, outcome) => sum + day[outcome], 0);

function describeDay(day: TimeseriesDay): string {
  const parts = OUTCOMES.filter((outcome) => day[outcome] > 0).map(
    (outcome) => `${formatCount(day[outcome])} ${OUTCOME_LABELS[outcome].toLowerCase()}`,
  );
  return `${formatDay(day.date)}: ${parts.length ? parts.join(', ') : 'no reports'}`;
}

/**
 * Outcomes per UTC day, stacked. Hand-rolled SVG: one chart does not justify a charting
 * library, and plain SVG follows the CSS theme (light and dark) with no inline styles.
 */
export function OutcomesChart({ days }: { days: TimeseriesDay[] }) {
  const ref = useRef<HTMLDivElement>(null);
  const width = Math.max(useWidth(ref), 240);
  const innerWidth = width - MARGIN.left - MARGIN.right;
  const innerHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const max = niceMax(Math.max(0, ...days.map(dayTotal)));
  const band = days.length > 0 ? innerWidth / days.length : innerWidth;
  const barWidth = Math.max(2, Math.min(28, band * 0.68));
  const labelEvery = Math.max(1, Math.ceil(days.length / Math.max(1, Math.floor(innerWidth / 58))));
  const y = (value: number) => MARGIN.top + innerHeight - (value / max) * innerHeight;
  const total = days.reduce((sum, day) => sum + dayTotal(day), 0);

  return (
    <div className="chart" ref={ref}>
      <svg
        width={width}
        height={HEIGHT}
        viewBox={`0 0 ${width} ${HEIGHT}`}
        role="img"
        aria-label={`Outcomes per day, ${days.length} days, ${formatCount(total)} reports`}
      >
        {[0, max / 2, max].map((tick) => (
          <g key={tick} className="chart-grid">
            <line x1={MARGIN.left} x2={width - MARGIN.right} y1={y(tick)} y2={y(tick)} />
            <text x={MARGIN.left - 6} y={y(tick)} dy="0.32em" textAnchor="end">
              {formatCount(tick)}
            </text>
          </g>
        ))}
        {days.map((day, index) => {
          const x = MARGIN.left + index * band + (band - barWidth) / 2;
          let base = 0;
          return (
            <g key={day.date} className="chart-day">
              <title>{describeDay(day)}</title>
              <rect
                className="chart-hover"
                x={MARGIN.left + index * band}
                y={MARGIN.top}
                width={band}
                height={innerHeight}
              />
              {OUTCOMES.map((outcome) => {
                const value = day[outcome];
                if (value === 0) return null;
                const top = y(base + value);
                const height = y(base) - top;
                base += value;
                return (
                  <rect
                    key={outcome}
                    className={`fill-${outcome}`}
                    x={x}
                    y={top}
                    width={barWidth}
                    height={Math.max(height, 1)}
                  />
                );
              })}
              {(days.length - 1 - index) % labelEvery === 0 && (
                <DayLabel
                  center={MARGIN.left + index * band + band / 2}
                  right={width - MARGIN.right}
                  date={day.date}
                />
              )}
            </g>
          );
        })}
      </svg>
      <OutcomeLegend className="chart-legend" />
      <div className="sr-only">
        <table>
          <caption>Reports per day and outcome</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              {OUTCOMES.map((outcome) => (
                <th key={outcome} scope="col">
                  {OUTCOME_LABELS[outcome]}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.map((day) => (
              <tr key={day.date}>
                <th scope="row">{day.date}</th>
                {OUTCOMES.map((outcome) => (
                  <td key={outcome}>{day[outcome]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/**
 * A day under the axis, centred on its bar; a label that would run past the chart's right edge
 * (the last day, on a narrow screen) ends at the edge instead of being clipped.
 */
function DayLabel({ center, right, date }: { center: number; right: number; date: string }) {
  const fits = center + LABEL_HALF_WIDTH <= right;
  return (
    <text
      className="chart-label"
      x={fits ? center : right}
      y={HEIGHT - 6}
      textAnchor={fits ? 'middle' : 'end'}
    >
      {formatDay(date)}
    </text>
  );
}
