import { startOfNextUtcDay, startOfNextUtcMonth, utcMonth } from '../time/utc-time.js';

/**
 * The limits on STORED reports, one home for the rule: the account's monthly quota (its
 * default, an account's override, unlimited), the project's monthly cap and the address's daily
 * share; the order they are checked in; and the UTC calendar windows they count in. The write
 * path's planner (reports/write-path/plan-batch.ts) applies them in the transaction that stores
 * the reports and keeps their counters, so the check and the insert are one atomic step; the
 * 429 each one causes is written in storage-refusal.ts. Free of imports but time/utc-time.ts: the
 * SQLite writer's worker thread runs it too.
 */

/** Stored reports per account per UTC month when neither the instance nor the account says. */
export const DEFAULT_MONTHLY_QUOTA = 1000;

/** An account's quota columns, as stored. */
export interface AccountQuota {
  monthly_quota: number | null;
  quota_unlimited: number;
}

/**
 * The monthly limit in force for an account; null = unlimited. Without an override, the
 * instance's free tier (`FREE_TIER_MONTHLY_REPORTS`, DEFAULT_MONTHLY_QUOTA unless set).
 */
export function monthlyQuotaLimit(freeTier: number | null, account: AccountQuota): number | null {
  if (account.quota_unlimited) return null;
  return account.monthly_quota ?? freeTier;
}

/** The columns of an ingest target (key → project → account) these limits read. */
export interface LimitColumns extends AccountQuota {
  monthly_cap: number | null;
  address_daily_share: number | null;
}

/** The instance's side: FREE_TIER_MONTHLY_REPORTS and ADDRESS_DAILY_SHARE. */
export interface StorageDefaults {
  freeTier: number | null;
  addressDailyShare: number;
}

/** Stored reports allowed; null = no limit of that kind. */
export interface StorageLimits {
  /** Per account and UTC month (the quota). */
  account: number | null;
  /** Per project and UTC month (the project's cap). */
  project: number | null;
  /** Per account, client address and UTC day: a share of the account's month. */
  addressDay: number | null;
}

/**
 * One address may store `share` % of the account's monthly quota per UTC day (at least one
 * report), so a flood from one address can take at most that much of the month per day; an
 * unlimited account has no such limit (the token buckets still apply).
 */
export function storageLimits(defaults: StorageDefaults, target: LimitColumns): StorageLimits {
  const account = monthlyQuotaLimit(defaults.freeTier, target);
  const share = target.address_daily_share ?? defaults.addressDailyShare;
  return {
    account,
    project: target.monthly_cap,
    addressDay:
      account === null || share >= 100 ? null : Math.max(1, Math.floor((account * share) / 100)),
  };
}

/** Which limit a report would pass, checked in this order; the counters say what is used. */
export type LimitReached = 'quota_exceeded' | 'project_cap' | 'address_daily';

export function limitReached(
  limits: StorageLimits,
  used: { account: number; project: number; addressDay: number },
): { reached: LimitReached; limit: number } | null {
  if (limits.account !== null && used.account >= limits.account) {
    return { reached: 'quota_exceeded', limit: limits.account };
  }
  if (limits.project !== null && used.project >= limits.project) {
    return { reached: 'project_cap', limit: limits.project };
  }
  if (limits.addressDay !== null && used.addressDay >= limits.addressDay) {
    return { reached: 'address_daily', limit: limits.addressDay };
  }
  return null;
}

/** An account's month announces `quota.warning` at this share of its quota. */
export const QUOTA_WARNING_SHARE = 0.8;

/** A mark of an account's month: `warning` at QUOTA_WARNING_SHARE of the quota, `reached` at it. */
export type QuotaThreshold = 'warning' | 'reached';

/**
 * The marks of a month's quota that a count of `after` is at or past, each with whether `before`
 * was still below it (the count passed it just now). The write path asks it once per account
 * and batch with the counts it holds. A quota of 0 has no marks (nothing is ever stored).
 */
export function quotaMarksPassed(
  quota: number,
  before: number,
  after: number,
): { threshold: QuotaThreshold; now: boolean }[] {
  if (quota <= 0 || after < quota * QUOTA_WARNING_SHARE) return [];
  const marks: { threshold: QuotaThreshold; now: boolean }[] = [
    { threshold: 'warning', now: before < quota * QUOTA_WARNING_SHARE },
  ];
  if (after >= quota) marks.push({ threshold: 'reached', now: before < quota });
  return marks;
}

/**
 * The windows a report stored at `now` counts in: the account's and the project's month
 * (`YYYY-MM`, UTC), and the address's day (`YYYY-MM-DD`, UTC). The counters are keyed by them.
 */
export function usageWindows(now: Date): { month: string; day: string } {
  // One ISO text for both, as utcMonth and utcDay write it: this runs once per submitted report.
  const iso = now.toISOString();
  return { month: iso.slice(0, 7), day: iso.slice(0, 10) };
}

/** The UTC month (`YYYY-MM`) whose quota and cap a report stored at `now` counts against. */
export function usageMonth(now: Date | number): string {
  return utcMonth(now);
}

/** When a limit reached at `now` resets: the next UTC month, or for the daily share the next UTC day. */
export function limitResetAt(reached: LimitReached, now: Date | number): Date {
  return reached === 'address_daily' ? startOfNextUtcDay(now) : startOfNextUtcMonth(now);
}
