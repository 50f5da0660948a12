import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Dialect } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import type { EventBus } from '../../realtime/event-bus.js';
import type { ReportSubmission, SubmissionOutcome } from '../../reports/write-path/index.js';
import { TERMS_VERSION } from '../grouping/index.js';
import { announceIssueChanges, type IssueChangeHook } from '../issue-announcements.js';
import { type BatchRunner, inProcessBatches } from './batch-runner.js';
import type { BatchResult } from './group-batch.js';
import { type StoredBatch, storedBatchOf } from './stored-inputs.js';

export interface GrouperOptions {
  /**
   * Reports per transaction; by default BATCH_SIZE of the dialect. The engine's work on a batch
   * runs without a break (~0.3–0.6 ms a report never seen before), so this bounds how long the
   * event loop waits, and how long triage waits for the progress row's lock.
   */
  batchSize?: number;
  /** Pause between rounds that found nothing (or less than a batch); by default INTERVAL_MS. */
  intervalMs?: number;
}

export interface GrouperDeps {
  db: Kysely<DB>;
  dialect: Dialect;
  bus: EventBus;
  /**
   * Resolves once every acknowledged report is queued for this grouper (ReportWriter.flush: a
   * SQLite writer keeps committed reports in its inbox until it moves them). Called once per
   * round. Only where a writer that does not group its reports has an inbox (tests of
   * `ISSUE_GROUPING=off`): the server's SQLite writer groups what it moves, and no other
   * writer has an inbox, so the server gives none. Each round forced a move of its own on
   * SQLite, a commit of a few hundred reports where the writer's 100 ms would have moved them
   * with the rest.
   */
  readBarrier?: () => Promise<void>;
  log: FastifyBaseLogger;
  /**
   * Where batches run: the server passes a thread of their own (grouping-thread.ts); by
   * default, on `db` in this thread (SQLite `:memory:`, tests).
   */
  batches?: BatchRunner;
  /** Called with a batch's new and reopened issues in its transaction (in-process batches). */
  onChanges?: IssueChangeHook;
}

/**
 * On PostgreSQL the grouper places every report, and each batch pays ~8 round trips and the
 * planning of its `update … from (values …)` whatever its size: per report, 500 a batch cost
 * 23–28 µs of the server's CPU and 45–50 of PostgreSQL's, 100 a batch 34–51 and 48–92 (a
 * scratch measurement of groupBatch over 20,000 waiting reports). A batch of 500 holds the lock
 * ~35 ms. On SQLite the report writer places arriving reports itself, and this groups
 * only what it leaves; its batch holds SQLite's one write lock, which the writer waits for, so
 * it stays short.
 *
 * PostgreSQL takes 2,000 a batch and polls every 500 ms: under the bench's saturating ingest a
 * round finds ~2,000 reports, one batch instead of two, each with its fixed cost (~8 round trips,
 * a plan each; in 20,000 grouped in batches of 1,000 or 2,000, medians of 6 rounds, PostgreSQL's
 * statements took 11.3 or 9.6 µs a report). Polled every 250 ms with batches of 500, a round
 * would find ~750 reports, a batch of 500 and one of 250 (A/B, 4 rounds: ingest beside grouping
 * 3,557 req/s that way, 3,720 with 1,000 every 500 ms, 4,223 without). Reports wait up to ~0.8 s
 * for their issue (the target is 2 s); a batch holds the lock ~100-150 ms under that load,
 * which a triage action may wait. A placement inserts the report's row of `report_issues`
 * (grouping-queue.ts, migration 0019): ~6 µs of PostgreSQL's time a report, where updating the
 * report's own row would cost ~63, and updating a row of `report_issues` inserted by the write
 * path ~57 (pg_stat_statements under the bench's ingest at 3,000 req/s); reading the batch back ~5,
 * which the write path's hand-over spares (stored-inputs.ts).
 */
const BATCH_SIZE: Readonly<Record<Dialect, number>> = { postgres: 2000, sqlite: 100 };
const INTERVAL_MS: Readonly<Record<Dialect, number>> = { postgres: 500, sqlite: 250 };
const MAX_BACKOFF_MS = 30_000;
/** What the write path handed over kept for the next round at most, in characters (Grouper.stored). */
const MAX_HANDED_CHARS = 8_000_000;
/**
 * After a whole batch the grouper pauses as long as the batch took (half the time), or a third
 * of that (three quarters) while the reports it grouped had waited longer than this: a report
 * is to get its issue within 2 s under load.
 */
const CATCH_UP_AFTER_MS = 1_000;
const CATCH_UP_PAUSE = 1 / 3;
/**
 * How long after a refresh of stale signatures ended (signature-refresh.ts) the grouper looks
 * again. Stale rows appear after an upgrade, which restarts it; else only from an instance of
 * an older release still writing during a rolling upgrade, or triage mixing a stale signature
 * into a fresh one while a refresh runs.
 */
const REFRESH_RECHECK_MS = 10 * 60_000;

/**
 * The background grouper. On a SQLite file the report writer groups reports as it
 * stores them (group-batch.ts createArrivalGrouper) and this groups only what it leaves (an
 * upgraded database's reports, a chunk whose grouping failed); on PostgreSQL it groups all,
 * from what the write path hands it as each batch commits (stored()), reading back only what it
 * was not handed. Off the request path, it places every report in an issue,
 * in report order, a batch per transaction (group-batch.ts), where `batches` runs them (the
 * server: a thread of their own). It polls every `intervalMs`, and while whole batches wait it
 * goes on after a pause as long as the last round, or a third of it while the reports it
 * groups have waited over a second (run(): the bench's saturating ingest outran the longer
 * pause). Progress lives in the database, not here: stopping it (or kill -9)
 * loses nothing, and a new one resumes with the first report still without an issue. Any
 * number of instances may run one on a PostgreSQL database; the progress row's lock lets one
 * group at a time, and the others skip their round.
 */
export class Grouper {
  private readonly batchSize: number;
  private readonly intervalMs: number;
  private readonly batches: BatchRunner;
  private loop: Promise<void> | null = null;
  private stopping = false;
  private timer: NodeJS.Timeout | null = null;
  private wakeUp: (() => void) | null = null;
  /** How long the last report of the last batch had waited for its issue. */
  private lastWaitMs = 0;
  /** What the write path stored since the last round, for the next batch (stored()). */
  private handed: StoredBatch[] = [];
  private handedChars = 0;
  /** When the next round of the signature refresh may run (after a whole refresh, or a failure). */
  private refreshAt = 0;
  /** The refresh under way: signatures written so far, and when it began. */
  private refreshing: { written: number; since: number } | null = null;

  constructor(
    private readonly deps: GrouperDeps,
    options: GrouperOptions = {},
  ) {
    this.batchSize = options.batchSize ?? BATCH_SIZE[deps.dialect];
    this.intervalMs = options.intervalMs ?? INTERVAL_MS[deps.dialect];
    this.batches =
      deps.batches ?? inProcessBatches(deps.db, deps.dialect, { onChanges: deps.onChanges });
  }

  get running(): boolean {
    return this.loop !== null;
  }

  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.loop = this.run().finally(() => {
      this.loop = null;
    });
  }

  /** Finishes the batch under way (committed or rolled back), then stops (and its thread). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loop;
    await this.batches.close();
  }

  /** Starts the next round now instead of after the pause. */
  wake(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const wakeUp = this.wakeUp;
    this.wakeUp = null;
    wakeUp?.();
  }

  /**
   * Told of reports the write path stored (its batch committed): the next round hands their
   * input to the batches, which then need not read them back (stored-inputs.ts): one text a
   * batch, posted with the round's request. Bounded: while rounds fail, the oldest go, and are
   * read back when grouped.
   */
  stored(submissions: readonly ReportSubmission[], outcomes: readonly SubmissionOutcome[]): void {
    const batch = storedBatchOf(submissions, outcomes);
    if (batch === null) return;
    this.handed.push(batch);
    this.handedChars += batch.length;
    while (this.handedChars > MAX_HANDED_CHARS) {
      this.handedChars -= (this.handed.shift() as StoredBatch).length;
    }
  }

  /**
   * Groups one batch and announces its new and regressed issues; returns how many reports it
   * placed (0: none waiting, or another instance holds the lock).
   */
  async runOnce(): Promise<number> {
    await this.deps.readBarrier?.();
    const handed = this.handed;
    this.handed = [];
    this.handedChars = 0;
    const result = await this.batches.group(this.batchSize, new Date(), handed);
    this.lastWaitMs =
      result.lastStoredAt === null ? 0 : Date.now() - Date.parse(result.lastStoredAt);
    if (result.changes.length > 0) await this.announce(result.changes);
    return result.grouped;
  }

  /**
   * Announces issues created or reopened by a committed batch, or by the report writer's
   * grouping (reports/write-path/), through the one announcer (issue-announcements.ts). Never
   * rejects.
   */
  async announce(changes: readonly BatchResult['changes'][number][]): Promise<void> {
    try {
      await announceIssueChanges(this.deps, changes);
    } catch (error) {
      // A live update is a bonus: the grouping is committed.
      this.deps.log.warn({ err: error }, 'could not announce issue changes');
    }
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      let grouped = 0;
      const started = Date.now();
      try {
        grouped = await this.runOnce();
        failures = 0;
      } catch (error) {
        failures += 1;
        this.deps.log.warn({ err: error }, 'grouping reports into issues failed; retrying');
      }
      if (this.stopping) break;
      // A whole batch: more are likely waiting. Go on after a pause, so a backlog (an upgraded
      // database, a copy, a burst) leaves part of the event loop, or of the SQLite write lock
      // the report writer needs (in the grouping thread), to the rest: back to back, the
      // writer waited for it and ingest p99 rose from 25 to 65–114 ms. A pause as long as the
      // round fell behind the bench's load (reports waited 3.5–4.2 s for their issue); a third
      // of it kept them under 0.4 s but raised ingest p99 by ~15 ms. So the shorter pause only
      // while grouping runs behind (CATCH_UP_AFTER_MS).
      if (grouped >= this.batchSize) {
        const behind = this.lastWaitMs > CATCH_UP_AFTER_MS;
        await this.pause((Date.now() - started) * (behind ? CATCH_UP_PAUSE : 1));
      } else {
        // No report waits for a whole batch: a round of the refresh, if one is under way.
        if (failures === 0) await this.refreshSignatures();
        await this.pause(
          failures > 0
            ? Math.min(MAX_BACKOFF_MS, this.intervalMs * 2 ** failures)
            : this.intervalMs,
        );
      }
    }
  }

  /**
   * A round of the refresh of signatures stored under older term rules, where the batches run
   * (signature-refresh.ts). Says when a refresh begins and ends; never rejects.
   */
  async refreshSignatures(): Promise<void> {
    if (Date.now() < this.refreshAt) return;
    const { log } = this.deps;
    try {
      const round = await this.batches.refresh();
      if (round.refreshed > 0 && this.refreshing === null) {
        this.refreshing = { written: 0, since: Date.now() };
        log.info(
          { termsVersion: TERMS_VERSION },
          'refreshing the grouping signatures stored under older term rules, from their reports, between batches',
        );
      }
      if (this.refreshing) this.refreshing.written += round.refreshed;
      if (!round.done) return;
      if (this.refreshing) {
        log.info(
          {
            termsVersion: TERMS_VERSION,
            refreshed: this.refreshing.written,
            ms: Date.now() - this.refreshing.since,
          },
          'refreshed the grouping signatures stored under older term rules',
        );
      }
      this.refreshing = null;
      this.refreshAt = Date.now() + REFRESH_RECHECK_MS;
    } catch (error) {
      this.refreshAt = Date.now() + MAX_BACKOFF_MS;
      log.warn({ err: error }, 'refreshing stale grouping signatures failed; retrying');
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wakeUp = resolve;
      this.timer = setTimeout(() => {
        this.timer = null;
        this.wakeUp = null;
        resolve();
      }, ms);
    });
  }
}
