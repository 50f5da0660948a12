import type { IngestTarget } from '../../keys/ingest-key-lookup.js';
import {
  limitReached,
  quotaMarksPassed,
  type StorageDefaults,
  storageLimits,
} from '../../limits/storage-limits.js';
import { ROLLUP_GRAINS, rollupColumns, rollupKey } from '../report-rollup-key.js';
import type { QuotaCrossing } from './quota-crossing-port.js';
import type { NewReport, ReportSubmission, SubmissionOutcome } from './report-writer.js';

/**
 * The counting of the write path, once for both storage back ends: which counter rows a batch
 * touches, what each submission of the batch comes to (in order, each counted after the ones
 * before it), and the aggregated writes. Which limits apply and which one a report reaches is
 * decided by limits/storage-limits.ts; this applies that rule to the batch's counters. Pure: no
 * SQL, no I/O. The back ends look the keys up (keys/ingest-key-lookup.ts), read (and on
 * PostgreSQL lock) the counter rows `counterRowsToRead` names, call `planBatch`, and write what
 * it returns (batch-steps.ts). Kept free of imports but storage-limits.ts and
 * report-rollup-key.ts: the SQLite writer's worker thread runs it too.
 */

/** A table of counters: its key columns and a `count` column, kept by upserts. */
export interface CounterTable {
  table: string;
  columns: readonly string[];
}

/** One counter row and the count a batch adds to it. */
export interface CounterWrite extends CounterTable {
  key: readonly (string | number)[];
  /** counterId(table, key). */
  id: string;
  added: number;
}

/** The counters of the limits on stored reports (limits/storage-limits.ts), read before planning. */
export const LIMIT_COUNTERS = {
  account: { table: 'usage_counters', columns: ['account_id', 'month'] },
  project: { table: 'project_usage', columns: ['project_id', 'month'] },
  addressDay: { table: 'address_usage', columns: ['account_id', 'address', 'day'] },
} as const satisfies Record<string, CounterTable>;

/** A counter every stored report adds one to, at the key `keyOf` gives it. */
export interface ReportCounter extends CounterTable {
  keyOf(report: NewReport): readonly (string | number)[];
}

/**
 * The per-report counters, written once per batch and row: the all-time facet counters and the
 * rollups (migrations 0010 and 0015, report-rollup-key.ts). Another such counter is one
 * more entry here: the back ends write every entry, and reports imported without the limits
 * (importReports) count in them too. Its count column must be named `count`, as the upsert of
 * batch-statements.ts writes it.
 */
export const REPORT_COUNTERS: readonly ReportCounter[] = [
  // '' stands for an absent label (report_counts' key columns cannot be NULL).
  {
    table: 'report_counts',
    columns: ['project_id', 'tool_name', 'source', 'outcome'],
    keyOf: (r) => [r.projectId, r.toolName ?? '', r.source ?? '', r.outcome],
  },
  // The same all time per outcome only (migration 0018): an unfiltered list's stats.
  {
    table: 'report_outcome_counts',
    columns: ['project_id', 'outcome'],
    keyOf: (r) => [r.projectId, r.outcome],
  },
  ...ROLLUP_GRAINS.map((grain) => ({
    table: grain.table,
    columns: rollupColumns(grain),
    keyOf: (r: NewReport) => rollupKey(grain, r),
  })),
];

/** A counter row, named as one string: the lock order of PostgreSQL, and the map key here. */
export function counterId(table: string, key: readonly (string | number)[]): string {
  return JSON.stringify([table, ...key]);
}

/**
 * The finest rollup bucket (a minute): every coarser one is a whole multiple of it from the
 * epoch, so the reports of one such bucket share the bucket of every grain (BatchCounters).
 */
const FINEST_BUCKET_MS = Math.min(...ROLLUP_GRAINS.map((grain) => grain.ms));

/** The counter rows of one batch, each one object, by counterId. */
class BatchCounters {
  readonly rows = new Map<string, CounterWrite>();
  private readonly reportRowsByGroup = new Map<string, CounterWrite[]>();

  /**
   * The REPORT_COUNTERS rows a report adds to. Every key is made of its project, labels,
   * outcome and a bucket that holds its finest bucket, so reports alike in those share their rows:
   * found once per such group in a batch, instead of a key and a JSON id per counter and report
   * (~5 µs a report in profiles of the bench's ingest). An absent label counts as '' in every
   * key, as here.
   */
  reportRows(report: NewReport): CounterWrite[] {
    const bucket = Math.floor(report.createdAt.getTime() / FINEST_BUCKET_MS);
    const group = `${report.projectId}\0${report.toolName ?? ''}\0${report.source ?? ''}\0${report.outcome}\0${bucket}`;
    let rows = this.reportRowsByGroup.get(group);
    if (!rows) {
      rows = REPORT_COUNTERS.map((counter) => this.row(counter, counter.keyOf(report)));
      this.reportRowsByGroup.set(group, rows);
    }
    return rows;
  }

  row(table: CounterTable, key: readonly (string | number)[]): CounterWrite {
    const id = counterId(table.table, key);
    let row = this.rows.get(id);
    if (!row) {
      row = { table: table.table, columns: table.columns, key, id, added: 0 };
      this.rows.set(id, row);
    }
    return row;
  }

  /** In the one lock order of every writer (lockOrder). */
  sorted(): CounterWrite[] {
    return [...this.rows.values()].sort(lockOrder);
  }
}

const LIMIT_TABLES: ReadonlySet<string> = new Set(
  Object.values(LIMIT_COUNTERS).map((counter) => counter.table),
);

/**
 * The one order in which every writer (of one process or of several) takes counter rows' locks
 * on PostgreSQL, so that no two batches wait for each other in a cycle: the limit counters
 * first, then the rest, each by counterId. Limits first because a batch reads and locks only
 * the limit rows whose limit applies (counterRowsToRead) and takes the others when it writes:
 * a batch of an unlimited account (its month counted, not read) locks the account's row when it
 * writes, and must do so before the report counters, as a batch that read it did.
 */
function lockOrder(a: CounterWrite, b: CounterWrite): number {
  const limitA = LIMIT_TABLES.has(a.table);
  if (limitA !== LIMIT_TABLES.has(b.table)) return limitA ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

type LimitRows = ReturnType<typeof limitRowsOf>;

/** An account month with a quota that a batch counts against: watched for crossings. */
interface QuotaWatch {
  accountId: string;
  month: string;
  quota: number;
  row: CounterWrite;
}

/**
 * The limits and the limit counter rows one submission counts against (a kind is null while it
 * has no limit); computed once per key, month, day and address of the batch.
 */
function limitRowsOf(
  counters: BatchCounters,
  submission: ReportSubmission,
  target: IngestTarget,
  defaults: StorageDefaults,
  watches: Map<string, QuotaWatch>,
) {
  const limits = storageLimits(defaults, target);
  const { month, address, day } = submission;
  // The account's month is counted even when unlimited: it is what the dashboard shows.
  const account = counters.row(LIMIT_COUNTERS.account, [target.account_id, month]);
  // A month with a quota is watched for the marks the batch brings it to (quotaCrossings).
  if (limits.account !== null && !watches.has(account.id))
    watches.set(account.id, {
      accountId: target.account_id,
      month,
      quota: limits.account,
      row: account,
    });
  return {
    limits,
    account,
    project:
      limits.project === null
        ? null
        : counters.row(LIMIT_COUNTERS.project, [target.project_id, month]),
    addressDay:
      limits.addressDay === null
        ? null
        : counters.row(LIMIT_COUNTERS.addressDay, [target.account_id, address, day]),
  };
}

/** limitRowsOf, remembered per key, month, day and address (a batch repeats them). */
function limitRowsCache(
  counters: BatchCounters,
  defaults: StorageDefaults,
  watches: Map<string, QuotaWatch> = new Map(),
) {
  const cache = new Map<string, LimitRows>();
  return (submission: ReportSubmission, target: IngestTarget): LimitRows => {
    const { ingestKey, month, day, address } = submission;
    const id = `${ingestKey} ${month} ${day} ${address}`;
    let rows = cache.get(id);
    if (!rows) {
      rows = limitRowsOf(counters, submission, target, defaults, watches);
      cache.set(id, rows);
    }
    return rows;
  };
}

/**
 * The limit counter rows the batch reads before planning: those of the limits that apply, each
 * once, in the lock order. An unlimited account's month is counted but not read: nothing is
 * decided on it, and on PostgreSQL reading it locked the row from the batch's start to its
 * commit, so that the batches in flight waited for each other's whole transaction (measured:
 * ~0.6 ms a batch of waiting, 9 % of ingest). Its row is locked when the batch adds to it, in
 * the same order. A batch in flight when the account is given a quota counts past it: admitted
 * under the setting its own lookup read, as reports stored a moment before the change are.
 */
export function counterRowsToRead(
  submissions: readonly ReportSubmission[],
  targets: ReadonlyMap<string, IngestTarget>,
  defaults: StorageDefaults,
): CounterWrite[] {
  const rowsOf = limitRowsCache(new BatchCounters(), defaults);
  const read = new Map<string, CounterWrite>();
  for (const submission of submissions) {
    const target = targets.get(submission.ingestKey);
    if (!target) continue;
    const { limits, account, project, addressDay } = rowsOf(submission, target);
    if (limits.account !== null) read.set(account.id, account);
    if (project) read.set(project.id, project);
    if (addressDay) read.set(addressDay.id, addressDay);
  }
  return [...read.values()].sort(lockOrder);
}

export interface BatchPlan {
  /** One per submission, in order. */
  outcomes: SubmissionOutcome[];
  /** The rows to insert into `reports` (or the SQLite inbox), in order. */
  reports: NewReport[];
  /** Every counter row the batch adds to (limit counters and REPORT_COUNTERS), by counterId. */
  counters: CounterWrite[];
  /** The account months whose quota marks the batch passes, for the QuotaCrossingHook. */
  crossings: QuotaCrossing[];
}

/**
 * Decides each submission in order against the counts committed before the batch (`used`, by
 * counterId; a row absent there counts 0) plus what the batch has already stored: the quota is
 * exact, since the writer holds the counter rows (a lock on PostgreSQL, the write lock on
 * SQLite) from the read to the commit.
 */
export function planBatch(
  submissions: readonly ReportSubmission[],
  targets: ReadonlyMap<string, IngestTarget>,
  used: ReadonlyMap<string, number>,
  defaults: StorageDefaults,
): BatchPlan {
  const counters = new BatchCounters();
  const watches = new Map<string, QuotaWatch>();
  const rowsOf = limitRowsCache(counters, defaults, watches);
  const count = (row: CounterWrite | null) =>
    row === null ? 0 : (used.get(row.id) ?? 0) + row.added;
  const reports: NewReport[] = [];

  const outcomes = submissions.map((submission): SubmissionOutcome => {
    const target = targets.get(submission.ingestKey);
    if (!target) return { status: 'unknown_key' };
    const { limits, account, project, addressDay } = rowsOf(submission, target);
    const reached = limitReached(limits, {
      account: count(account),
      project: count(project),
      addressDay: count(addressDay),
    });
    if (reached?.reached === 'quota_exceeded') {
      return { status: 'quota_exceeded', limit: reached.limit };
    }
    if (reached) {
      return { status: reached.reached, projectId: target.project_id, limit: reached.limit };
    }
    account.added += 1;
    if (project) project.added += 1;
    if (addressDay) addressDay.added += 1;
    const report: NewReport = { ...submission.report, projectId: target.project_id };
    reports.push(report);
    addReportCounters(counters, report);
    return { status: 'stored', projectId: target.project_id };
  });
  return {
    outcomes,
    reports,
    counters: counters.sorted().filter((row) => row.added > 0),
    crossings: quotaCrossings(watches.values(), used),
  };
}

/**
 * The quota marks each watched account month is at or past once the batch commits
 * (limits/storage-limits.ts), once per account month and batch: `passed: 'now'` when the batch's
 * reports passed it, `'before'` when the month was already past it as the batch began (the
 * hand-over announces those once per writer: quota-hand-over.ts). A month below 80 % of its
 * quota, nearly every one, costs one comparison.
 */
function quotaCrossings(
  watches: Iterable<QuotaWatch>,
  used: ReadonlyMap<string, number>,
): QuotaCrossing[] {
  const crossings: QuotaCrossing[] = [];
  for (const { accountId, month, quota, row } of watches) {
    const before = used.get(row.id) ?? 0;
    const after = before + row.added;
    for (const { threshold, now } of quotaMarksPassed(quota, before, after))
      crossings.push({
        accountId,
        month,
        threshold,
        used: after,
        quota,
        passed: now ? 'now' : 'before',
      });
  }
  return crossings;
}

/** The REPORT_COUNTERS of reports stored as they are (importReports: seeding, copying). */
export function reportCountersOf(reports: readonly NewReport[]): CounterWrite[] {
  const counters = new BatchCounters();
  for (const report of reports) addReportCounters(counters, report);
  return counters.sorted();
}

function addReportCounters(counters: BatchCounters, report: NewReport): void {
  for (const row of counters.reportRows(report)) row.added += 1;
}
