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
        <meter
          className="usage-meter"
          min={0}
          max={usage.limit ?? 1}
          low={(usage.limit ?? 1) * NEAR_LIMIT}
          high={(usage.limit ?? 1) * 0.99}
          optimum={0}
          value={Math.min(usage.used, usage.limit ?? 0)}
          aria-label="Monthly report quota used"
        />
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
