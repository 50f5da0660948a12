import { monthlyQuotaLimit } from '../../limits/storage-limits.js';
import { HOUR_MS, startOfUtcMonth, utcMonth } from '../../time/utc-time.js';
import type { NotificationEntry } from '../notification-port.js';
import { claimMark } from './notification-marks.repository.js';
import { byProject, type ProducerDeps } from './subscribers.js';

/** `quota.warning` fires at this share of the account's monthly quota. */
export const QUOTA_WARNING_SHARE = 0.8;

/**
 * How long into a month the previous one is still checked: a crossing committed in a month's
 * last minute, or just before a restart across the month's end, is still announced.
 */
const PREVIOUS_MONTH_CHECKED_MS = HOUR_MS;

/**
 * `quota.warning` (80 % of the month's quota used) and `quota.reached`: the quota is an
 * account's, across its projects, and each project of the account with a subscribed destination
 * hears it. Each fires once per account and UTC month: the claim (`notification_marks`, subject
 * `<account>:<month>`) and the notifications commit together. A minute's check over the usage
 * counters the write path keeps, only for the accounts that have a subscribed destination, so
 * ingest itself does not change.
 *
 * Nothing is lost by checking rather than writing the row in the counter's own transaction: the
 * counter is committed with the reports and only grows within its month, so a crossing stays
 * visible to every later check (after a crash too) until the claim and the notification commit
 * together, once. What it costs is up to a minute of delay.
 */
export async function checkQuotas(
  deps: ProducerDeps & { freeTierMonthlyReports: number | null },
  now: Date,
): Promise<number> {
  const months = [utcMonth(now)];
  const monthStart = startOfUtcMonth(now).getTime();
  if (now.getTime() - monthStart < PREVIOUS_MONTH_CHECKED_MS) months.push(utcMonth(monthStart - 1));
  let fired = 0;
  for (const month of months) fired += await checkMonth(deps, month, now);
  return fired;
}

async function checkMonth(
  deps: ProducerDeps & { freeTierMonthlyReports: number | null },
  month: string,
  now: Date,
): Promise<number> {
  let fired = 0;
  for (const type of ['quota.warning', 'quota.reached'] as const) {
    const projects = byProject(await deps.findSubscribers(deps.db, type));
    if (projects.size === 0) continue;
    const rows = await deps.db
      .selectFrom('projects')
      .innerJoin('accounts', 'accounts.id', 'projects.account_id')
      .leftJoin('usage_counters', (join) =>
        join
          .onRef('usage_counters.account_id', '=', 'accounts.id')
          .on('usage_counters.month', '=', month),
      )
      .select([
        'projects.id as project_id',
        'accounts.id as account_id',
        'accounts.monthly_quota',
        'accounts.quota_unlimited',
        'usage_counters.count',
      ])
      .where('projects.id', 'in', [...projects.keys()])
      .execute();
    const byAccount = new Map<string, typeof rows>();
    for (const row of rows)
      byAccount.set(row.account_id, [...(byAccount.get(row.account_id) ?? []), row]);
    for (const [accountId, accountRows] of byAccount) {
      const first = accountRows[0]!;
      const quota = monthlyQuotaLimit(deps.freeTierMonthlyReports, {
        monthly_quota: first.monthly_quota,
        quota_unlimited: Number(first.quota_unlimited),
      });
      const used = Number(first.count ?? 0);
      if (quota === null || quota === 0) continue;
      const crossed =
        type === 'quota.warning' ? used >= quota * QUOTA_WARNING_SHARE : used >= quota;
      if (!crossed) continue;
      const entries: NotificationEntry[] = accountRows.map((row) => ({
        projectId: row.project_id,
        type,
        data: { used, quota, month, share: Math.round((used / quota) * 1000) / 1000 },
      }));
      const claimed = await deps.db.transaction().execute(async (trx) => {
        if (!(await claimMark(trx, type, `${accountId}:${month}`, String(used), now))) return false;
        await deps.enqueue(trx, entries);
        return true;
      });
      if (claimed) fired += 1;
    }
  }
  return fired;
}
