import type { Kysely } from 'kysely';
import type { Dialect } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import { iso } from '../../db/wire-timestamp.js';
import {
  centroidOf,
  type Signature,
  serializeSignature,
  TERMS_VERSION,
} from '../grouping/index.js';
import { UNSORTED_KIND } from './group-reports.js';
import { bumpIssuesVersion, lockGroupingProgress } from './grouping.repository.js';
import {
  anyStaleSignature,
  findStaleIssue,
  listRecentIssueReports,
  listRecentMergeReports,
  listStaleExemplars,
  listStaleIssues,
  listStaleMerges,
  type RefreshedRow,
  type RefreshReport,
  type StaleIssue,
  writeRefreshedIssues,
  writeRefreshedRows,
} from './signature-refresh.repository.js';

/**
 * After an upgrade that changed how text becomes terms (the engine's TERMS_VERSION), the
 * signatures stored under the older rules are made again from their reports: an issue's
 * centroid (centroidOf over its most recent REFRESH_REPORTS_PER_ISSUE reports), a moved
 * report's exemplar (its report's fingerprint), and a merge record's (its reports', as the
 * issue's), each then stamped with TERMS_VERSION. Until then the stale ones are read and used
 * as they are; a report of a known problem whose wording only the new rules read may meanwhile
 * open an issue of its own.
 *
 * The grouper runs a round between its batches, when no batch is whole (grouper.ts), where the
 * batches run (the grouping thread, or in process): the engine's work never holds the event
 * loop of the requests, and never delays a waiting report by more than a round. A round reads
 * outside any transaction and computes; its writes are one short transaction under the progress
 * row's lock, taken as a batch takes it (skipped while another instance's grouper holds it), and
 * counted in `issues_version`, so every grouper's kept candidates (pool-cache.ts) and the SQLite
 * writer's are read again (on a SQLite file the writer thread groups arriving reports with
 * candidates of its own; SQLite's one write lock orders its transactions and the refresh's, and
 * the bump makes its next one read the refreshed signatures: a cost paid only while a refresh
 * runs). An issue whose signature changed since its reports were read (a
 * report joined it meanwhile) is remade again in that transaction, never written without that
 * report. Each row's signature and stamp change in one statement, so a crash leaves every row
 * refreshed or still stale, and a restart goes on from the newest stale issue.
 */

/**
 * Reports an issue's signature is made from again, at most: its most recent, so that an issue
 * of millions costs what one of 500 does. An issue of more weighs its last 500 reports (its
 * `members` says 500): a centroid of them, which recent reports of the problem resemble most.
 */
export const REFRESH_REPORTS_PER_ISSUE = 500;
/**
 * Reports a round reads at most: the engine's work on them runs unbroken, ~0.27 ms a report
 * never seen before (fingerprint and merge: 133 ms for an issue of 500 distinct reports of the
 * corpus, scratch measurement on a two-core machine), so a round costs about what a batch does.
 */
const ROUND_REPORTS = 500;
/** Issues a round looks at, at most. */
const ROUND_ISSUES = 50;
/** Moved reports, and merge records, a round refreshes at most. */
const ROUND_ROWS = 100;

/** Stale issues remade from their reports, to write (SignatureRefresh.apply). */
export interface IssuePlan {
  rows: RefreshedRow[];
  /** The walk's position after them. */
  last: string | null;
}

export interface RefreshRound {
  /** Signatures written by the round. */
  refreshed: number;
  /** Nothing stored is older than the engine's rules: the refresh is over, until the next upgrade. */
  done: boolean;
}

/**
 * The refresh of one grouper (one per BatchRunner): where its walk of the stale issues stands,
 * newest first. A pass walks them all once, then the moved reports and merge records; a pass
 * after which anything is still stale (made stale behind the walk: triage mixing in a stale
 * signature, an instance of an older release) is followed by another.
 */
export class SignatureRefresh {
  /** The walk's position: the last issue id it looked at (null: from the newest). */
  #before: string | null = null;

  /**
   * `version`: the engine's TERMS_VERSION; `reportsPerIssue`: REFRESH_REPORTS_PER_ISSUE (a test
   * of the bound passes fewer).
   */
  constructor(
    private readonly version: number = TERMS_VERSION,
    private readonly reportsPerIssue: number = REFRESH_REPORTS_PER_ISSUE,
  ) {}

  /** The next part of the refresh: some stale issues, or moved reports and merge records, or its end. */
  async round(db: Kysely<DB>, dialect: Dialect): Promise<RefreshRound> {
    const plan = await this.plan(db);
    if (plan) return this.apply(db, dialect, plan);
    // The pass has walked every issue: the moved reports and merge records, then the end.
    const exemplars = await listStaleExemplars(db, this.version, ROUND_ROWS);
    const merges = await listStaleMerges(db, this.version, ROUND_ROWS);
    if (exemplars.length + merges.length > 0) {
      const moved = exemplars.map(({ id, signature, outcome, tool_name, details }) => ({
        id,
        signature:
          details === null || outcome === null
            ? signature
            : madeOr(signature, () => centroidOf([{ outcome, tool_name, details }])),
      }));
      const merged: RefreshedRow[] = [];
      for (const { id, signature } of merges) {
        const reports = await listRecentMergeReports(db, id, this.reportsPerIssue);
        merged.push({ id, signature: remade(reports, signature) });
      }
      const written = await this.#write(
        db,
        dialect,
        async (trx) =>
          (await writeRefreshedRows(trx, 'issue_exemplars', moved, this.version)) +
          (await writeRefreshedRows(trx, 'issue_merges', merged, this.version)),
      );
      return { refreshed: written ?? 0, done: false };
    }
    // A pass that left issues stale (one changed while its reports were read) is followed by
    // another; one that leaves none ends the refresh.
    this.#before = null;
    return { refreshed: 0, done: !(await anyStaleSignature(db, this.version)) };
  }

  /**
   * The walk's next stale issues (REFRESH_REPORTS_PER_ISSUE reports each, ROUND_REPORTS in all),
   * each remade from its reports as read now, outside any transaction; null at the walk's end.
   * round() is plan() then apply(), apart for a test that changes an issue between the two.
   */
  async plan(db: Kysely<DB>): Promise<IssuePlan | null> {
    const issues = await listStaleIssues(db, this.version, this.#before, ROUND_ISSUES);
    if (issues.length === 0) return null;
    const rows: RefreshedRow[] = [];
    let read = 0;
    let last = this.#before;
    for (const issue of issues) {
      if (read >= ROUND_REPORTS) break;
      last = issue.id;
      const { row, reports } = await this.#remake(db, issue);
      rows.push(row);
      read += reports;
    }
    return { rows, last };
  }

  /**
   * Writes a plan in one transaction under the progress row's lock. An issue that changed since
   * its reports were read (a report joined it, triage changed it) is remade again there, from
   * what the transaction reads, which nothing else can change while it holds the lock: one issue
   * that reports join all the time is refreshed all the same.
   */
  async apply(db: Kysely<DB>, dialect: Dialect, plan: IssuePlan): Promise<RefreshRound> {
    const written = await this.#write(db, dialect, async (trx) => {
      const changed = await writeRefreshedIssues(trx, plan.rows, this.version);
      let count = plan.rows.length - changed.length;
      for (const id of changed) {
        // Gone, or refreshed by another instance meanwhile: nothing to do.
        const issue = await findStaleIssue(trx, id, this.version);
        if (!issue) continue;
        const { row } = await this.#remake(trx, issue);
        if ((await writeRefreshedIssues(trx, [row], this.version)).length === 0) count += 1;
      }
      return count;
    });
    // Another instance's grouper held the lock: the same issues next round.
    if (written !== null) this.#before = plan.last;
    return { refreshed: written ?? 0, done: false };
  }

  /** An issue's signature made from its most recent reports, read in `db`; how many it read. */
  async #remake(
    db: Kysely<DB>,
    issue: StaleIssue,
  ): Promise<{ row: RefreshedRow; reports: number }> {
    // The reports the engine failed on stay apart, in an issue without a signature.
    if (issue.kind === UNSORTED_KIND)
      return {
        row: { id: issue.id, read: issue.signature, signature: issue.signature },
        reports: 0,
      };
    const reports = await listRecentIssueReports(
      db,
      issue.project_id,
      issue.id,
      this.reportsPerIssue,
    );
    return {
      row: { id: issue.id, read: issue.signature, signature: remade(reports, issue.signature) },
      reports: reports.length,
    };
  }

  /**
   * The round's writes, in one transaction under the progress row's lock, counted in
   * `issues_version`; null when another instance's grouper holds the lock (PostgreSQL).
   */
  async #write<T>(
    db: Kysely<DB>,
    dialect: Dialect,
    body: (trx: Kysely<DB>) => Promise<T>,
  ): Promise<T | null> {
    return db.transaction().execute(async (trx) => {
      if (!(await lockGroupingProgress(trx, dialect, { wait: false }))) return null;
      await bumpIssuesVersion(trx);
      return body(trx);
    });
  }
}

/** The signature `reports` make (newest first, as read), in report order; else `stored`. */
function remade(reports: readonly RefreshReport[], stored: string): string {
  const ordered = reports
    .map((report) => ({ report, at: iso(report.created_at) }))
    .sort((a, b) => compareOrder(a.at, b.at) || compareOrder(a.report.id, b.report.id))
    .map(({ report }) => report);
  return madeOr(stored, () => centroidOf(ordered));
}

/**
 * What `make` gives, serialized; `stored` when it gives nothing (no report left: deleted since)
 * or the engine fails on a report: kept as it is, and stamped, so that the refresh does not
 * come back to it at every pass.
 */
function madeOr(stored: string, make: () => Signature | null): string {
  try {
    const signature = make();
    return signature === null ? stored : serializeSignature(signature);
  } catch {
    return stored;
  }
}

function compareOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
