import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

/**
 * What the SQLite writer thread needs from a grouper (the thread's half of grouping-port.ts): an
 * ArrivalGrouper over the thread's connection, which gives each report its issue in the
 * transaction that moves it into `reports`. issues/pipeline/ implements it.
 */

/** What grouping reads of a report, with where it sits in report order. */
export interface ReportToGroup {
  id: string;
  project_id: string;
  outcome: string;
  tool_name: string | null;
  details: string;
  created_at: string | Date;
}

/** An issue a grouping created or reopened, to announce once its transaction committed. */
export interface IssueChange {
  projectId: string;
  issueId: string;
  change: 'created' | 'regressed';
  /** The report that opened or reopened it. */
  reportId?: string;
}

/** Where each arriving report goes (in the order given), and the issues to announce after commit. */
export interface Arrivals {
  placements: { reportId: string; issueId: string; reason: string }[];
  changes: IssueChange[];
}

/**
 * Groups reports as they arrive, in the transaction ArrivalGrouper.transaction runs; null when
 * they must be inserted without an issue, queued for the background grouper.
 */
export type GroupArrivals = (reports: readonly ReportToGroup[]) => Promise<Arrivals | null>;

/** What the SQLite writer thread needs from a grouper: one per writer, on its connection. */
export interface ArrivalGrouper {
  /**
   * Runs `body` in one transaction on the grouper's connection, handing it `group`: called at
   * most once, before the reports are inserted, it says which issue each goes to (null: insert
   * them without one, for the background grouper).
   */
  transaction<T>(body: (trx: Kysely<DB>, group: GroupArrivals) => Promise<T>): Promise<T>;
}

/** Makes the writer thread's ArrivalGrouper over its own connection (a SQLite file). */
export type ArrivalGrouperFactory = (db: Kysely<DB>, dialect: 'sqlite') => ArrivalGrouper;
