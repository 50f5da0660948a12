/** An account's quota columns, as stored. */
export interface AccountQuota {
  monthly_quota: number | null;
  quota_unlimited: number;
}

/**
 * The monthly limit in force for an account; null = unlimited. Without an override, the
 * instance's free tier (`FREE_TIER_MONTHLY_REPORTS`). Kept free of imports: the report writer's
 * worker thread uses it too.
 */
export function monthlyQuotaLimit(freeTier: number | null, account: AccountQuota): number | null {
  if (account.quota_unlimited) return null;
  return account.monthly_quota ?? freeTier;
}
