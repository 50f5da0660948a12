import type { Usage } from '../api/console.types';
import { formatCount, nextMonthStart } from './format';

const NEAR_LIMIT = 0.8;

export function usageRatio(usage: Usage): number | null {
  if (usage.limit === null) return null;
  if (usage.limit <= 0) return 1;
  return usage.used / usage.limit;
}

/** The compact meter in the header: this month's reports against the quota. */
export function UsageMeter({ usage }: { usage: Usage }) {
  const ratio = usageRatio(usage);
  const level = ratio === null ? 'ok' : ratio >= 1 ? 'over' : ratio >= NEAR_LIMIT ? 'near' : 'ok';
  const text =
    usage.limit === null
      ? `${formatCount(usage.used)} reports this month`
      : `${formatCount(usage.used)} / ${formatCount(usage.limit)} reports this month`;
  return (
    <div className={`usage usage-${level}`} title={`Usage for ${usage.month} (UTC)`}>
      <span className="usage-text">{text}</span>
      {ratio !== null && (
        // An SVG bar rather than <meter>: it follows the theme, and needs no style attribute.
        <svg
          className="usage-bar"
          viewBox="0 0 100 6"
          preserveAspectRatio="none"
          aria-hidden="true"
        >
          <rect className="usage-track" x="0" y="0" width="100" height="6" />
          <rect className="usage-fill" x="0" y="0" width={Math.min(100, ratio * 100)} height="6" />
        </svg>
      )}
    </div>
  );
}

/** A banner on every page once the account is near (80%) or over its monthly quota. */
export function UsageNotice({ usage }: { usage: Usage }) {
  const ratio = usageRatio(usage);
  if (ratio === null || ratio < NEAR_LIMIT || usage.limit === null) return null;
  const resets = nextMonthStart(usage.month);
  if (ratio >= 1) {
    return (
      <div className="banner banner-over" role="alert">
        <strong>Monthly limit reached.</strong> This account has stored {formatCount(usage.used)} of{' '}
        {formatCount(usage.limit)} reports this month. New reports are refused (HTTP 429
        quota_exceeded) until {resets}, UTC. Ask the operator of this instance to raise the quota.
      </div>
    );
  }
  return (
    <div className="banner banner-near" role="status">
      <strong>Nearing the monthly limit.</strong> {formatCount(usage.used)} of{' '}
      {formatCount(usage.limit)} reports used ({Math.round(ratio * 100)}%). Past the limit new
      reports are refused until {resets}, UTC.
    </div>
  );
}
