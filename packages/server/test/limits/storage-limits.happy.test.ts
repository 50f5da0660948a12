import { describe, expect, it } from 'vitest';
import {
  limitResetAt,
  monthlyQuotaLimit,
  storageLimits,
  usageWindows,
} from '../../src/limits/storage-limits.js';
import { storageLimitError } from '../../src/limits/storage-refusal.js';
import {
  DAY_MS,
  startOfNextUtcDay,
  startOfNextUtcMonth,
  startOfUtcDay,
  startOfUtcMonth,
  utcDay,
  utcMonth,
} from '../../src/time/utc-time.js';

/** The limits on stored reports (limits/storage-limits.ts) and the UTC calendar they count in. */
describe('UTC calendar', () => {
  it('names and bounds days and months in UTC, across a year and a leap day', () => {
    const late = new Date('2024-12-31T23:59:59.999Z');
    expect(utcDay(late)).toBe('2024-12-31');
    expect(utcMonth(late)).toBe('2024-12');
    expect(startOfUtcDay(late)).toBe(Date.parse('2024-12-31T00:00:00Z'));
    expect(startOfNextUtcDay(late).toISOString()).toBe('2025-01-01T00:00:00.000Z');
    expect(startOfUtcMonth(late).toISOString()).toBe('2024-12-01T00:00:00.000Z');
    expect(startOfNextUtcMonth(late).toISOString()).toBe('2025-01-01T00:00:00.000Z');
    expect(startOfNextUtcDay(Date.parse('2024-02-28T12:00:00Z')).toISOString()).toBe(
      '2024-02-29T00:00:00.000Z',
    );
    expect(DAY_MS).toBe(86_400_000);
  });
});

describe('storage limits', () => {
  const account = { monthly_quota: null, quota_unlimited: 0 };

  it('takes the account override, else the instance default; unlimited wins', () => {
    expect(monthlyQuotaLimit(1000, account)).toBe(1000);
    expect(monthlyQuotaLimit(1000, { ...account, monthly_quota: 5 })).toBe(5);
    expect(monthlyQuotaLimit(1000, { monthly_quota: 5, quota_unlimited: 1 })).toBeNull();
    expect(monthlyQuotaLimit(null, account)).toBeNull();
  });

  it("gives an address a daily share of the account's month, at least one report", () => {
    const target = { ...account, monthly_cap: null, address_daily_share: null };
    expect(storageLimits({ freeTier: 1000, addressDailyShare: 10 }, target).addressDay).toBe(100);
    expect(storageLimits({ freeTier: 5, addressDailyShare: 10 }, target).addressDay).toBe(1);
    expect(storageLimits({ freeTier: 1000, addressDailyShare: 100 }, target).addressDay).toBeNull();
    expect(storageLimits({ freeTier: null, addressDailyShare: 10 }, target).addressDay).toBeNull();
  });

  it('counts in the UTC month and day, and resets at the next one', () => {
    const now = new Date('2026-11-30T23:00:00Z');
    expect(usageWindows(now)).toEqual({ month: '2026-11', day: '2026-11-30' });
    for (const at of ['1969-12-31T23:59:59.999Z', '2024-02-29T12:00:00Z', '2026-12-31T23:59:59Z']) {
      const instant = new Date(at);
      expect(usageWindows(instant)).toEqual({ month: utcMonth(instant), day: utcDay(instant) });
    }
    expect(limitResetAt('quota_exceeded', now).toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(limitResetAt('project_cap', now).toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(limitResetAt('address_daily', now).toISOString()).toBe('2026-12-01T00:00:00.000Z');
    expect(limitResetAt('address_daily', new Date('2026-11-15T06:00:00Z')).toISOString()).toBe(
      '2026-11-16T00:00:00.000Z',
    );
  });

  it('answers each reached limit with its 429 and a Retry-After to its reset', () => {
    const now = new Date('2026-11-30T23:00:00Z');
    const quota = storageLimitError('quota_exceeded', 1000, now);
    expect(quota.code).toBe('quota_exceeded');
    expect(quota.options.headers).toEqual({ 'Retry-After': '3600' });
    expect(quota.detail).toContain('1000 reports for 2026-11 (UTC)');
    const cap = storageLimitError('project_cap', 50, now);
    expect(cap.code).toBe('quota_exceeded');
    expect(cap.detail).toContain('monthly cap');
    const share = storageLimitError('address_daily', 100, now);
    expect(share.code).toBe('rate_limited');
    expect(share.options.headers).toMatchObject({
      'Retry-After': '3600',
      'RateLimit-Policy': '"daily";q=100;w=86400',
    });
  });
});
