import { findIngestTargets, type IngestTarget } from '../../keys/ingest-key-lookup.js';
import type { StorageDefaults } from '../../limits/storage-limits.js';
import {
  addToCounters,
  type CounterRow,
  insertReports,
  mergeWrites,
  type ReportTable,
  readCounters,
  type Statement,
  type StatementDialect,
} from './batch-statements.js';
import {
  type CounterWrite,
  counterId,
  counterRowsToRead,
  planBatch,
  reportCountersOf,
} from './plan-batch.js';
import type { QuotaCrossing } from './quota-crossing-port.js';
import type { NewReport, ReportSubmission, SubmissionOutcome } from './report-writer.js';

export type Row = Record<string, unknown>;

/**
 * The steps of one batch, as a generator that yields each statement and is handed back its rows:
 * the same steps run synchronously in the SQLite writer thread (runSync) and over a Kysely
 * transaction (runAsync), so the order of the work exists once. In the batch's transaction:
 * look the keys up (keys/ingest-key-lookup.ts), read (and lock) the counter rows the batch
 * touches in one sorted order, plan (plan-batch.ts), insert the stored reports, add to each
 * counter row once. The back end then hands the quota crossings to its hook
 * (quota-hand-over.ts), in the same transaction.
 */
export type BatchSteps<T> = Generator<Statement, T, Row[]>;

export interface StoreOptions {
  dialect: StatementDialect;
  reportTable: ReportTable;
  defaults: StorageDefaults;
}

/** What a batch's steps come to: each submission's outcome, and the quota marks it passes. */
export interface StoredBatch {
  outcomes: SubmissionOutcome[];
  /** For the QuotaCrossingHook, which the back end calls in the same transaction. */
  crossings: QuotaCrossing[];
}

export function* storeBatchSteps(
  submissions: readonly ReportSubmission[],
  { dialect, reportTable, defaults }: StoreOptions,
): BatchSteps<StoredBatch> {
  const keys = [...new Set(submissions.map((s) => s.ingestKey))];
  const targets = new Map<string, IngestTarget>();
  for (const statement of findIngestTargets(dialect, keys)) {
    for (const row of (yield statement) as unknown as IngestTarget[]) {
      targets.set(row.ingest_key, row);
    }
  }
  const used = new Map<string, number>();
  const groups = byTable(counterRowsToRead(submissions, targets, defaults)).map((rows) => ({
    table: rows[0]!,
    keys: rows.map((row) => row.key),
  }));
  for (const statement of readCounters(dialect, groups)) {
    for (const row of (yield statement) as unknown as CounterRow[]) {
      used.set(counterId(row.counter, JSON.parse(row.key)), Number(row.count));
    }
  }
  const plan = planBatch(submissions, targets, used, defaults);
  yield* writeSteps(dialect, reportTable, plan.reports, plan.counters);
  return { outcomes: plan.outcomes, crossings: plan.crossings };
}

/** Reports stored as they are, with their counters but no limits (seeding, copying). */
export function* importSteps(
  dialect: StatementDialect,
  reports: readonly NewReport[],
): BatchSteps<void> {
  yield* writeSteps(dialect, 'reports', reports, reportCountersOf(reports));
}

function* writeSteps(
  dialect: StatementDialect,
  reportTable: ReportTable,
  reports: readonly NewReport[],
  counters: readonly CounterWrite[],
): BatchSteps<void> {
  for (const statement of insertReports(dialect, reportTable, reports)) yield statement;
  // In the lock order (plan-batch.ts): the same in every transaction.
  for (const rows of byTable(counters)) {
    for (const statement of addToCounters(dialect, rows)) yield statement;
  }
}

/** Consecutive rows of one table (in the lock order, a table's rows are consecutive). */
function byTable(rows: readonly CounterWrite[]): CounterWrite[][] {
  const groups: CounterWrite[][] = [];
  for (const row of rows) {
    const last = groups.at(-1);
    if (last && last[0]!.table === row.table) last.push(row);
    else groups.push([row]);
  }
  return groups;
}

export function runSync<T>(steps: BatchSteps<T>, execute: (statement: Statement) => Row[]): T {
  let next = steps.next();
  while (!next.done) next = steps.next(execute(next.value));
  return next.value;
}

/**
 * Runs the steps over an asynchronous connection. Statements that return nothing are held and
 * sent together (batch-statements.ts mergeWrites) before the next one that returns rows, and at
 * the end: nothing reads what they write until then.
 */
export async function runAsync<T>(
  steps: BatchSteps<T>,
  dialect: StatementDialect,
  execute: (statement: Statement) => Promise<Row[]>,
): Promise<T> {
  let held: Statement[] = [];
  const send = async () => {
    for (const statement of mergeWrites(dialect, held)) await execute(statement);
    held = [];
  };
  let next = steps.next();
  while (!next.done) {
    const statement = next.value;
    if (statement.returnsRows) {
      await send();
      next = steps.next(await execute(statement));
    } else {
      held.push(statement);
      next = steps.next([]);
    }
  }
  await send();
  return next.value;
}
