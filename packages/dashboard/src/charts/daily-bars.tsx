import { formatCount, formatDay } from '../ui/format';

export interface DayCount {
  /** YYYY-MM-DD (UTC) */
  day: string;
  count: number;
}

/** The last `days` UTC days ending today, oldest first, with the given counts (0 where none). */
export function lastDays(daily: DayCount[], days: number, now = Date.now()): DayCount[] {
  const counts = new Map(daily.map((entry) => [entry.day, entry.count]));
  const today = Date.UTC(
    new Date(now).getUTCFullYear(),
    new Date(now).getUTCMonth(),
    new Date(now).getUTCDate(),
  );
  return Array.from({ length: days }, (_, i) => {
    const day = new Date(today - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10);
    return { day, count: counts.get(day) ?? 0 };
  });
}

/**
 * Reports per day as bars: the issue list's sparkline (small, no axis) and the issue page's
 * chart. Plain SVG like OutcomesChart, coloured by CSS (light and dark); the numbers are in the
 * label (sparkline) or a screen-reader table (chart).
 */
export function DailyBars({
  days,
  width,
  height,
  label,
  className = 'daily-bars',
}: {
  days: DayCount[];
  width: number;
  height: number;
  label: string;
  className?: string;
}) {
  const max = Math.max(1, ...days.map((entry) => entry.count));
  const band = width / Math.max(1, days.length);
  const gap = band > 6 ? 1.5 : 0.5;
  return (
    <svg
      className={className}
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={label}
    >
      <line className="daily-bars-base" x1={0} x2={width} y1={height - 0.5} y2={height - 0.5} />
      {days.map((entry, i) => {
        const h = entry.count === 0 ? 0 : Math.max(1.5, (entry.count / max) * (height - 1));
        return (
          <rect
            key={entry.day}
            className="daily-bars-bar"
            x={i * band + gap / 2}
            y={height - h}
            width={Math.max(1, band - gap)}
            height={h}
          >
            <title>{`${formatDay(entry.day)}: ${formatCount(entry.count)}`}</title>
          </rect>
        );
      })}
    </svg>
  );
}
