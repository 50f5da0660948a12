import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { EnqueueNotifications, NotificationEntry } from '../notification-port.js';
import { claimMark } from './notification-marks.repository.js';

/** A mark of an account's monthly quota that a stored batch passed (the write path tells it). */
export interface QuotaMarkPassed {
  accountId: string;
  /** `YYYY-MM` (UTC). */
  month: string;
  /** `warning`: 80 % of the quota; `reached`: the quota. */
  threshold: 'warning' | 'reached';
  /** The month's count once the batch commits, and the quota. */
  used: number;
  quota: number;
}

/**
 * `quota.warning` and `quota.reached`, written in the transaction of the batch that passes the
 * mark (`trx`): the quota is an account's, across its projects, so each project of the account
 * gets a row and its destinations subscribed to the type hear it. Each fires once per account and
 * UTC month, whatever the quota becomes: the claim (`notification_marks`, scope the type, subject
 * `<account>:<month>`) commits with the rows, and a mark already claimed writes none. Loads only
 * the outbox's producer side: the SQLite writer thread runs it. Returns the events announced.
 */
export async function announceQuotaCrossings(
  trx: Kysely<DB>,
  crossings: readonly QuotaMarkPassed[],
  enqueue: EnqueueNotifications,
  now = new Date(),
): Promise<number> {
  const entries: NotificationEntry[] = [];
  const projectsOf = new Map<string, string[]>();
  let announced = 0;
  for (const { accountId, month, threshold, used, quota } of crossings) {
    const type = threshold === 'warning' ? 'quota.warning' : 'quota.reached';
    if (!(await claimMark(trx, type, `${accountId}:${month}`, String(used), now))) continue;
    announced += 1;
    let projects = projectsOf.get(accountId);
    if (!projects) {
      const rows = await trx
        .selectFrom('projects')
        .select('id')
        .where('account_id', '=', accountId)
        .orderBy('id')
        .execute();
      projects = rows.map((row) => row.id);
      projectsOf.set(accountId, projects);
    }
    const data = { used, quota, month, share: Math.round((used / quota) * 1000) / 1000 };
    for (const projectId of projects) entries.push({ projectId, type, data });
  }
  await enqueue(trx, entries);
  return announced;
}
