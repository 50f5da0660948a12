import type { IssueChangeHook } from '../issues/issue-announcements.js';
// The producer side only, not notifications/index.ts nor producers/index.ts: the writer and
// grouping threads load this, and need none of the deliverer's HTTP client and signing, nor the
// periodic producers.
import { enqueueNotifications } from '../notifications/outbox.repository.js';
import { announceQuotaCrossings } from '../notifications/producers/quota-crossings.js';
import type { QuotaCrossingHook } from '../reports/write-path/index.js';

/**
 * The grouping pipeline's issue-change socket (issues/issue-announcements.ts) served by the
 * notifications' outbox: an issue a grouping batch created or reopened becomes one outbox row
 * (`issue.created`, `issue.regressed`), in the batch's transaction. Given to the grouper in the
 * server's context, to its thread (grouping-thread-worker.ts) and to the SQLite writer thread
 * (sqlite-writer-worker.ts).
 */
export const notifyIssueChanges: IssueChangeHook = (trx, changes) =>
  enqueueNotifications(
    trx,
    changes.flatMap((change) =>
      change.change === 'created' || change.change === 'regressed'
        ? [
            {
              projectId: change.projectId,
              type:
                change.change === 'created'
                  ? ('issue.created' as const)
                  : ('issue.regressed' as const),
              issueId: change.issueId,
              ...(change.reportId ? { reportId: change.reportId } : {}),
            },
          ]
        : [],
    ),
  );

/**
 * The write path's quota socket (reports/write-path/quota-crossing-port.ts) served by the
 * outbox: a batch that passes 80 % of an account's month or reaches it writes `quota.warning` or
 * `quota.reached` (one row per project of the account, claimed once a month) in its own
 * transaction. Given to the Kysely writer in the server's context (quota-seam.ts) and to the
 * SQLite writer thread (sqlite-writer-worker.ts).
 */
export const notifyQuotaCrossings: QuotaCrossingHook = async (trx, crossings) => {
  await announceQuotaCrossings(trx, crossings, enqueueNotifications);
};
