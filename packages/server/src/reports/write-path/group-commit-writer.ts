import { CompiledQuery, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { StorageDefaults } from '../../limits/storage-limits.js';
import type { Statement, StatementDialect } from './batch-statements.js';
import { type Row, runAsync, storeBatchSteps } from './batch-steps.js';
import type { QuotaCrossingHook } from './quota-crossing-port.js';
import { quotaHandOver } from './quota-hand-over.js';
import type { ReportSubmission, ReportWriter, SubmissionOutcome } from './report-writer.js';

/** Submissions one transaction takes at most: bounds its statements and how long it holds locks. */
export const MAX_BATCH = 500;

/**
 * Transactions in flight at once. Two: while one commits (PostgreSQL's fsync), the next one
 * already looks its keys up and waits on the counter rows the first holds, and the requests
 * answered meanwhile gather for the one after. With one, the database sat idle while the
 * event loop handled the answered batch's next requests: 200 against 305–320 req/s (2,000
 * submits through the in-process app at concurrency 50, fsync on, on a loaded 2-core machine,
 * so the figures are rough; `npm run bench` measures PostgreSQL ingest over HTTP).
 */
export const COMMITS_IN_FLIGHT = 2;

type Settled = { ok: true; outcome: SubmissionOutcome } | { ok: false; error: unknown };

interface Pending {
  submission: ReportSubmission;
  resolve(outcome: SubmissionOutcome): void;
  reject(error: unknown): void;
}

export interface GroupCommitOptions {
  dialect: StatementDialect;
  defaults: StorageDefaults;
  /** Told the size of every batch that committed (tests: batches are shared). */
  onCommit?: (size: number) => void;
  /**
   * Told every committed batch: its submissions and their outcomes, those `stored` now in
   * `reports` (the grouping port's `stored`: grouping-port.ts).
   */
  onStored?: (
    submissions: readonly ReportSubmission[],
    outcomes: readonly SubmissionOutcome[],
  ) => void;
  /** Told, in a batch's transaction, the quota marks it passes (quota-crossing-port.ts). */
  quotaCrossings?: QuotaCrossingHook;
}

/**
 * The Kysely back end of the write path, for PostgreSQL and SQLite `:memory:`: GROUP COMMIT.
 * Submissions arriving while a transaction is in flight queue and share the next one: one key
 * lookup, one locking read of the counter rows the batch touches (sorted, so two processes on
 * one database never deadlock), the planner (plan-batch.ts), a multi-row insert of the reports
 * and one upsert per counter table; then the commit, and only then each submission's outcome
 * (the 201). Row locks keep the quota exact across processes: a second process's batch waits
 * for the account's usage row until this one commits, then reads the new count. If a batch
 * fails, each of its submissions is tried again alone, so an error reaches only its own
 * submitter.
 */
export function createGroupCommitWriter(
  db: Kysely<DB>,
  { dialect, defaults, onCommit, onStored, quotaCrossings }: GroupCommitOptions,
): ReportWriter {
  const quota = quotaHandOver(quotaCrossings ?? null);
  let queue: Pending[] = [];
  let inFlight = 0;
  let scheduled = false;
  let closed = false;
  let drained: (() => void) | null = null;
  // Outcomes are handed out in batch order even when the later of two transactions in flight
  // commits first: each 201 publishes its report to the live streams, whose Last-Event-ID
  // resume trusts that reports arrive in the order they were submitted.
  let handedOut: Promise<void> = Promise.resolve();

  const execute = (trx: Kysely<DB>) => async (statement: Statement) => {
    const result = await trx.executeQuery<Row>(
      CompiledQuery.raw(statement.sql, statement.parameters),
    );
    return result.rows;
  };

  async function store(submissions: ReportSubmission[]): Promise<SubmissionOutcome[]> {
    const { outcomes, handed } = await db.transaction().execute(async (trx) => {
      const reportTable = 'reports';
      const batch = await runAsync(
        storeBatchSteps(submissions, { dialect, reportTable, defaults }),
        dialect,
        execute(trx),
      );
      return { outcomes: batch.outcomes, handed: await quota.inTransaction(trx, batch.crossings) };
    });
    quota.committed(handed);
    return outcomes;
  }

  /** Stores a batch; answers each submission after every earlier batch has been answered. */
  function run(batch: Pending[]): Promise<void> {
    const settled = settle(batch);
    const turn = handedOut.then(async () => {
      for (const [i, result] of (await settled).entries()) {
        if (result.ok) batch[i]!.resolve(result.outcome);
        else batch[i]!.reject(result.error);
      }
    });
    handedOut = turn;
    return turn;
  }

  /**
   * A committed batch's outcomes, told to `onStored`. Never throws: the batch is committed, and
   * trying its submissions again would store them twice.
   */
  function committed(batch: Pending[], outcomes: SubmissionOutcome[]): SubmissionOutcome[] {
    onCommit?.(batch.length);
    try {
      onStored?.(
        batch.map((p) => p.submission),
        outcomes,
      );
    } catch {
      // A hand-over is a saving: the grouper reads back what it was not handed.
    }
    return outcomes;
  }

  async function settle(batch: Pending[]): Promise<Settled[]> {
    try {
      const outcomes = committed(batch, await store(batch.map((p) => p.submission)));
      return outcomes.map((outcome) => ({ ok: true, outcome }));
    } catch (error) {
      if (batch.length === 1) return [{ ok: false, error }];
    }
    // One at a time: the submission that broke the batch fails alone.
    const results: Settled[] = [];
    for (const p of batch) {
      try {
        const [outcome] = committed([p], await store([p.submission]));
        results.push({ ok: true, outcome: outcome! });
      } catch (error) {
        results.push({ ok: false, error });
      }
    }
    return results;
  }

  function pump(): void {
    scheduled = false;
    while (inFlight < COMMITS_IN_FLIGHT && queue.length > 0) {
      const batch = queue.slice(0, MAX_BATCH);
      queue = queue.slice(batch.length);
      inFlight += 1;
      void run(batch).finally(() => {
        inFlight -= 1;
        if (queue.length > 0) pump();
        else if (inFlight === 0) drained?.();
      });
    }
  }

  return {
    submit(submission) {
      if (closed) return Promise.reject(new Error('The report writer is closed.'));
      return new Promise<SubmissionOutcome>((resolve, reject) => {
        queue.push({ submission, resolve, reject });
        // After the I/O of this turn, so the requests parsed in it share a batch; while a
        // transaction is in flight, its end starts the next batch.
        if (!scheduled && inFlight < COMMITS_IN_FLIGHT) {
          scheduled = true;
          setImmediate(pump);
        }
      });
    },
    // Each report is in `reports` once its batch commits, before its outcome is returned.
    flush: async () => {},
    // Kysely's pool connects on demand; /readyz asks the database itself.
    ready: async () => {},
    unavailable: () => null,
    async close() {
      closed = true;
      if (inFlight > 0 || queue.length > 0 || scheduled) {
        await new Promise<void>((resolve) => (drained = resolve));
      }
    },
  };
}
