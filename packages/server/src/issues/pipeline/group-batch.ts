import type { Kysely } from 'kysely';
import type { Dialect } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import type { ArrivalGrouper, Arrivals } from '../../reports/write-path/index.js';
import type { IssueChangeHook } from '../issue-announcements.js';
import { addIssueDays, IssueDayTally } from '../issue-days.repository.js';
import {
  type Change,
  DEFAULT_ENGINE,
  type Grouped,
  type GroupingEngine,
  groupReports,
  type ReportToGroup,
} from './group-reports.js';
import {
  addNearMisses,
  advanceGroupingProgress,
  insertIssues,
  lockGroupingProgress,
  updateGroupedIssues,
} from './grouping.repository.js';
import {
  anyReportWaiting,
  listWaitingReports,
  placeWaitingReports,
  type WaitingScan,
} from './grouping-queue.js';
import { PoolCache } from './pool-cache.js';
import type { KnownInputs } from './stored-inputs.js';

/**
 * The two ways reports get their issue, each in the caller's transaction and under the progress
 * row's lock (one grouper at a time, of any instance; triage waits for it):
 *
 * - groupBatch: the background grouper's, over reports already stored without one;
 * - groupArrivals: the write path's, over reports about to be inserted, so that each is
 *   inserted with its issue (no second write of the row, no second commit).
 *
 * Either way in report order and exactly once: arrivals are grouped only while no stored report
 * waits for the background grouper (a report never overtakes an older one), and a report
 * inserted with its issue is never among those it reads.
 */

export {
  DEFAULT_ENGINE,
  type GroupingEngine,
  NEW_ISSUE_REASON,
  UNSORTED_KIND,
} from './group-reports.js';
export type { Change, ReportToGroup };

export interface BatchResult {
  grouped: number;
  /** Issues to announce once committed: project, issue and what happened to it. */
  changes: Change[];
  /** When the last report it grouped was stored (ISO): how far behind grouping runs. */
  lastStoredAt: string | null;
}

/**
 * Groups the next stored reports without an issue (at most `limit`, in report order, found by
 * `scan`: grouping-queue.ts WaitingScan): all or nothing with the caller's transaction, so
 * a crash (kill -9) leaves every report either grouped once or still to group. Nothing grouped
 * when another instance holds the lock. With a `cache`, the caller tells it whether the
 * transaction committed (pool-cache.ts); with `known`, the reports the write path handed over
 * are grouped without being read back (stored-inputs.ts).
 */
export async function groupBatch(
  trx: Kysely<DB>,
  dialect: Dialect,
  limit: number,
  now: Date,
  engine: GroupingEngine = DEFAULT_ENGINE,
  cache?: PoolCache,
  scan: WaitingScan = 'all',
  known?: KnownInputs,
  onChanges?: IssueChangeHook,
): Promise<BatchResult> {
  const none: BatchResult = { grouped: 0, changes: [], lastStoredAt: null };
  const progress = await lockGroupingProgress(trx, dialect, { wait: false, tune: true });
  if (!progress) return none;
  const version = Number(progress.issues_version);
  const handed = known && { inputs: known, trusted: cache?.unchangedAt(version) ?? false };
  const { reports, take } = await listWaitingReports(trx, dialect, limit, scan, handed);
  if (reports.length === 0) {
    // Nothing waits, or the queued reports were all moved by hand meanwhile: their rows go.
    await placeWaitingReports(trx, dialect, [], [], take);
    return none;
  }
  const grouped = await groupReports(trx, reports, version, now, engine, cache);
  await writeGrouped(trx, dialect, grouped, reports, now, onChanges);
  await placeWaitingReports(trx, dialect, grouped.members, reports, take);
  return { grouped: reports.length, changes: grouped.changes, lastStoredAt: grouped.lastStoredAt };
}

/**
 * Writes what groupReports decided, in the caller's transaction under the progress row's lock:
 * the new issues, every touched issue's state and reports per day, and the progress past the
 * last report placed. Placing the reports is the caller's: the queued reports' rows of
 * `report_issues` (grouping-queue.ts), or the arriving reports' insert.
 */
async function writeGrouped(
  trx: Kysely<DB>,
  dialect: Dialect,
  grouped: Grouped,
  reports: readonly ReportToGroup[],
  now: Date,
  onChanges?: IssueChangeHook,
): Promise<void> {
  await insertIssues(trx, grouped.created);
  // What else the new and reopened issues set off (an outbox row each), in this transaction.
  if (onChanges && grouped.changes.length > 0) await onChanges(trx, grouped.changes);
  await updateGroupedIssues(trx, dialect, grouped.updates, now);
  await addIssueDays(trx, daysOf(grouped, reports));
  await addNearMisses(trx, grouped.nearMisses);
  const last = grouped.members[grouped.members.length - 1] as { reportId: string };
  await advanceGroupingProgress(
    trx,
    { createdAt: grouped.lastStoredAt, id: last.reportId },
    grouped.members.length,
    now,
  );
}

/**
 * The placements' reports per issue and UTC day. Members come in the order of the reports; a
 * report found elsewhere is looked up by id.
 */
function daysOf(grouped: Grouped, reports: readonly ReportToGroup[]): IssueDayTally {
  const days = new IssueDayTally();
  let byId: Map<string, ReportToGroup> | undefined;
  grouped.members.forEach((member, i) => {
    let report = reports[i];
    if (report?.id !== member.reportId) {
      byId ??= new Map(reports.map((r) => [r.id, r]));
      report = byId.get(member.reportId);
    }
    if (!report) throw new Error(`Placed a report the batch did not read (${member.reportId}).`);
    days.add(member.issueId, report.project_id, report.created_at);
  });
  return days;
}

/**
 * The write path's grouping (its port: reports/write-path/arrival-grouper.ts): one per writer,
 * on the connection it writes with. Only SQLite's writer thread has one (its move of the inbox);
 * PostgreSQL's group commit leaves grouping to the background grouper (docs/scaling.md says why:
 * grouping in its commit costs ingest far more). The candidates a transaction read are kept for the
 * next one if it commits (pool-cache.ts).
 */
export function createArrivalGrouper(
  db: Kysely<DB>,
  dialect: Dialect,
  onChanges?: IssueChangeHook,
): ArrivalGrouper {
  const cache = new PoolCache();
  return {
    async transaction(body) {
      try {
        const result = await db
          .transaction()
          .execute((trx) =>
            body(trx, (reports) =>
              groupArrivals(trx, dialect, reports, new Date(), cache, onChanges),
            ),
          );
        cache.committed();
        return result;
      } catch (error) {
        cache.forget();
        throw error;
      }
    },
  };
}

/**
 * Groups `reports` (in report order) that the caller inserts in this transaction, after this
 * returns, each with the issue it was given. Null when they must be inserted without one, for
 * the background grouper: a stored report still waits for it, or (PostgreSQL) another
 * instance holds the lock.
 */
async function groupArrivals(
  trx: Kysely<DB>,
  dialect: Dialect,
  reports: readonly ReportToGroup[],
  now: Date,
  cache?: PoolCache,
  onChanges?: IssueChangeHook,
): Promise<Arrivals | null> {
  if (reports.length === 0) return { placements: [], changes: [] };
  const progress = await lockGroupingProgress(trx, dialect, { wait: false });
  if (!progress || (await anyReportWaiting(trx, dialect, 'all'))) return null;
  const version = Number(progress.issues_version);
  const grouped = await groupReports(trx, reports, version, now, DEFAULT_ENGINE, cache);
  await writeGrouped(trx, dialect, grouped, reports, now, onChanges);
  return { placements: grouped.members, changes: grouped.changes };
}
