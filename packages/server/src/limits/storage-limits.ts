import { type AccountQuota, monthlyQuotaLimit } from '../accounts/monthly-quota.js';

/**
 * The limits on STORED reports, applied by the write path's planner
 * (reports/write-path/plan-batch.ts), which keeps the counters in the transaction of the reports.
 * Kept free of imports but monthly-quota.ts: the SQLite writer's worker thread uses it too.
 */

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
