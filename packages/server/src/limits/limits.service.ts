import {
  type ProjectLimitSettings,
  type ProjectLimits,
  THROTTLE_REASONS,
  type ThrottledStats,
} from '@debrief/protocol';
import type { Kysely } from 'kysely';
import { findAccountById } from '../accounts/account.repository.js';
import type { Config } from '../config.js';
import type { DB } from '../db/schema.js';
import { ApiError } from '../errors/api-error.js';
import { getOwnedProject, type OwnedProjects } from '../projects/project.service.js';
import { DAY_MS, startOfUtcMonth, utcDay } from '../time/utc-time.js';
import type { IngestGate } from './ingest-gate.js';
import {
  countProjectReportsSince,
  countThrottledByReason,
  findProjectLimits,
  setProjectUsage,
  topThrottledAddresses,
  updateProjectLimits,
} from './limits.repository.js';
import { storageLimits, usageMonth } from './storage-limits.js';
import type { ThrottleLog } from './throttle-log.js';

/** The dashboard's window of throttled counts: today and the six days before. */
export const THROTTLED_DAYS = 7;
const TOP_ADDRESSES = 10;

/** A project's limit settings, the instance's defaults and what applies now. */
export async function getProjectLimits(
  ctx: { db: Kysely<DB>; config: Config; ownedProjects: OwnedProjects },
  accountId: string,
  projectId: string,
): Promise<ProjectLimits> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  const [settings, account] = await Promise.all([
    findProjectLimits(ctx.db, project.id),
    findAccountById(ctx.db, accountId),
  ]);
  if (!settings || !account) throw new ApiError('not_found', 'This project no longer exists.');
  const defaults = ctx.config.ingestLimits;
  const limits = storageLimits(
    { freeTier: ctx.config.freeTierMonthlyReports, addressDailyShare: defaults.addressDailyShare },
    { ...account, ...settings },
  );
  const now = new Date();
  return {
    settings,
    defaults: {
      key_rate: defaults.keyRate,
      key_burst: defaults.keyBurst,
      address_rate: defaults.addressRate,
      address_burst: defaults.addressBurst,
      address_daily_share: defaults.addressDailyShare,
    },
    address_daily_limit: limits.addressDay,
    account_monthly_quota: limits.account,
    month: usageMonth(now),
    month_used: await countProjectReportsSince(ctx.db, project.id, startOfUtcMonth(now)),
  };
}

/**
 * Replaces a project's limit settings. A new cap starts from the reports the project stored
 * this month (the writers keep the counter only while a cap is set), so it holds at once. The
 * buckets of this instance take the new settings at the next submission; other instances
 * within 10 s (keys/ingest-key-cache.ts, db/lookup-cache.ts LOOKUP_CACHE_MS).
 */
export async function setProjectLimits(
  ctx: { db: Kysely<DB>; config: Config; ownedProjects: OwnedProjects; ingestGate: IngestGate },
  accountId: string,
  projectId: string,
  settings: ProjectLimitSettings,
): Promise<ProjectLimits> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  const before = await findProjectLimits(ctx.db, project.id);
  if (settings.monthly_cap !== null && before?.monthly_cap == null) {
    // Every report acknowledged so far is counted (the read waits for the writer,
    // db/routed-dialect.ts); one stored during these two statements may be missed (exact-ish,
    // by at most the reports in flight).
    const now = new Date();
    const used = await countProjectReportsSince(ctx.db, project.id, startOfUtcMonth(now));
    await setProjectUsage(ctx.db, project.id, usageMonth(now), used);
  }
  await updateProjectLimits(ctx.db, project.id, settings);
  ctx.ingestGate.forget(project.id);
  return getProjectLimits(ctx, accountId, project.id);
}

/** Refused submissions of the last 7 UTC days, per reason, and the addresses refused most. */
export async function getThrottledStats(
  ctx: { db: Kysely<DB>; throttles: ThrottleLog; ownedProjects: OwnedProjects },
  accountId: string,
  projectId: string,
): Promise<ThrottledStats> {
  const project = await getOwnedProject(ctx, accountId, projectId);
  // This instance's counts of the last seconds too (others add theirs every 5 s).
  await ctx.throttles.flush();
  const sinceDay = utcDay(Date.now() - (THROTTLED_DAYS - 1) * DAY_MS);
  const [reasons, top] = await Promise.all([
    countThrottledByReason(ctx.db, project.id, sinceDay),
    topThrottledAddresses(ctx.db, project.id, sinceDay, TOP_ADDRESSES),
  ]);
  const byReason = Object.fromEntries(THROTTLE_REASONS.map((r) => [r, 0])) as Record<
    (typeof THROTTLE_REASONS)[number],
    number
  >;
  let total = 0;
  for (const { reason, n } of reasons) {
    if (reason in byReason) byReason[reason as keyof typeof byReason] += n;
    total += n;
  }
  return { days: THROTTLED_DAYS, total, by_reason: byReason, top_addresses: top };
}
