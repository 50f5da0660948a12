import type { Outcome } from '@debrief/protocol';

export const OUTCOME_LABELS: Record<Outcome, string> = {
  success: 'Success',
  failure: 'Failure',
  confusing: 'Confusing',
  gave_up: 'Gave up',
  request: 'Request',
};

const numberFormat = new Intl.NumberFormat();
export const formatCount = (n: number) => numberFormat.format(n);

export function formatPercent(ratio: number): string {
  return `${Math.round(ratio * 100)}%`;
}

/**
 * A rate that may be small (errors per call): one decimal under 10 %, so 0.3 % is not shown as
 * 0 %; whole percents above.
 */
export function formatRate(ratio: number): string {
  const percent = Math.round(ratio * 1000) / 10;
  return percent >= 10 ? `${Math.round(percent)}%` : `${percent}%`;
}

/** Reports per 1,000 calls: one decimal under 10. */
export function formatPerThousand(value: number): string {
  return value >= 10 ? formatCount(Math.round(value)) : String(Math.round(value * 10) / 10);
}

const exactFormat = new Intl.DateTimeFormat(undefined, {
  dateStyle: 'medium',
  timeStyle: 'medium',
});

/** "12 Nov 2026, 14:03:11" in the reader's time zone, with UTC alongside for sharing. */
export function formatExact(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${exactFormat.format(date)} (${iso.replace('T', ' ').replace('Z', ' UTC')})`;
}

const relativeFormat = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const shortDate = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export function formatRelative(iso: string, now: number): string {
  const then = new Date(iso).getTime();
  if (Number.isNaN(then)) return iso;
  const seconds = Math.round((then - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return 'just now';
  if (abs < 3600) return relativeFormat.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return relativeFormat.format(Math.round(seconds / 3600), 'hour');
  if (abs < 7 * 86_400) return relativeFormat.format(Math.round(seconds / 86_400), 'day');
  return shortDate.format(new Date(then));
}

/** A UTC calendar date, YYYY-MM-DD, `days` before today. */
export function utcDateDaysAgo(days: number, now = Date.now()): string {
  return new Date(now - days * 86_400_000).toISOString().slice(0, 10);
}

const dayFormat = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  timeZone: 'UTC',
});
export function formatDay(date: string): string {
  return dayFormat.format(new Date(`${date}T00:00:00Z`));
}

const monthFormat = new Intl.DateTimeFormat(undefined, {
  month: 'long',
  day: 'numeric',
  timeZone: 'UTC',
});
/** "December 1": when a month's quota resets (UTC). */
export function nextMonthStart(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return monthFormat.format(new Date(Date.UTC(y, m, 1)));
}
