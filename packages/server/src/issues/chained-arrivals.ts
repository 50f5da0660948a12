import { type Kysely, sql } from 'kysely';
import { type DB, toDate } from '../db/schema.js';
import { type Change, DEFAULT_ENGINE, groupReports, type ReportToGroup } from './group-reports.js';
import {
  type IssueState,
  type IssueUpdate,
  listUngroupedReports,
  type NewIssue,
} from './grouping.repository.js';
import { databaseReads, type GroupingReads } from './grouping-reads.js';
import { PoolCache } from './pool-cache.js';
import type { Placement } from './working-issue.js';

/**
 * PostgreSQL's write path groups the reports it inserts (issue 18), so that a report's row of
 * `report_issues` is written once, with its issue, in the batch's one statement: the background
 * grouper's second write of every row cost PostgreSQL's ingest 11–25 % (docs/scaling.md).
 *
 * Optimistic, never a lock held across the batch: a batch groups from the pools its writer keeps
 * (pool-cache.ts), at the version of `grouping_progress` they were read at, and its statement
 * writes the grouping only if the database still holds that version and no stored report waits
 * for the background grouper (else the reports are stored without an issue, and wait for it).
 * The version chains a writer's batches in flight: the second groups from the first's pools
 * and expects the version the first writes, so if the first's grouping is not written, neither
 * is the second's. Triage, the background grouper and other instances write issues under the
 * same version: any of their writes breaks the chain, and the next batch reads again ("cold"):
 * alone (it waits until no batch of this writer is in flight, before its transaction takes any
 * lock), it reads the version and the reports waiting, and places those first, in report order,
 * before its own.
 *
 * The engine runs here on the event loop, so a batch compares at most NOVEL_LIMIT reports with
 * the candidates (a repeat of an earlier report costs none): when a batch would need more, the
 * rest of it is stored without an issue, and for DEFER_MS the writer leaves grouping to the
 * background grouper, whose thread has the time.
 *
 * Two batches in flight are grouped in the order their plans are ready, one at a time: usually
 * the order they were submitted in (they wait on the same counter rows); else they hold other
 * projects' reports, whose pools are apart.
 */

/** A batch's grouping, for its one statement (reports/write-path/grouped-write.ts). */
export interface ArrivalWrites {
  /** The progress version it was grouped at: written only if the database still holds it. */
  version: number;
  /** Stored reports that waited, placed by this batch, in report order. */
  waiting: Placement[];
  /** The batch's reports placed, a prefix of them in their order; the rest wait. */
  arrivals: Placement[];
  created: NewIssue[];
  updates: IssueUpdate[];
  /** The last report placed: where the progress row moves. */
  last: { createdAt: string; id: string };
  /** Issues to announce once written. */
  changes: Change[];
}

export interface ArrivalTicket {
  /**
   * In the batch's transaction, before its insert: the issues of `reports` (in the order they
   * are inserted), or null: insert them without one.
   */
  group(trx: Kysely<DB>, reports: readonly ReportToGroup[]): Promise<ArrivalWrites | null>;
  /** After the transaction: whether it wrote its grouping (committed, and the version held). */
  settle(applied: boolean): void;
}

/** Reports a batch compares with the candidates at most, on the event loop (~30–600 µs each). */
const NOVEL_LIMIT = 8;
/** Stored reports a cold batch places at most before its own. */
const WAITING_LIMIT = 1000;
/** How long the writer leaves grouping to the background grouper after a batch stopped short. */
const DEFER_MS = 1000;

const PASSIVE: ArrivalTicket = { group: async () => null, settle: () => {} };

interface Ticket {
  cold: boolean;
  grouped: boolean;
}

export class ChainedArrivals {
  readonly #cache = new PoolCache();
  /** The version the database holds once every batch in flight is written; null: read it. */
  #head: number | null = null;
  readonly #open = new Set<Ticket>();
  #idle: (() => void)[] = [];
  /** Issues written by batches in flight, laid over what a batch reads (overlaid). */
  readonly #overlay = new Map<string, { state: IssueState; ticket: Ticket }>();
  #deferUntil = 0;
  /** One batch groups at a time: each groups from the pools the one before left. */
  #turn: Promise<unknown> = Promise.resolve();

  /** Before a batch's transaction: a cold batch first waits until none of this writer's is open. */
  async begin(): Promise<ArrivalTicket> {
    while (this.#head === null) {
      if (Date.now() < this.#deferUntil) return PASSIVE;
      if (this.#open.size === 0) break;
      await new Promise<void>((resolve) => this.#idle.push(resolve));
    }
    const ticket: Ticket = { cold: this.#head === null, grouped: false };
    this.#open.add(ticket);
    return {
      group: (trx, reports) => {
        const run = this.#turn.then(() => this.#group(ticket, trx, reports));
        this.#turn = run.catch(() => {});
        return run;
      },
      settle: (applied) => this.#settle(ticket, applied),
    };
  }

  async #group(
    ticket: Ticket,
    trx: Kysely<DB>,
    reports: readonly ReportToGroup[],
  ): Promise<ArrivalWrites | null> {
    try {
      let version = this.#head;
      let waiting: ReportToGroup[] = [];
      if (ticket.cold) {
        // Nothing of this writer is in flight (begin): what the database holds is all there is.
        this.#cache.forget();
        this.#overlay.clear();
        version = await readIssuesVersion(trx);
        waiting = await listUngroupedReports(trx, 'postgres', WAITING_LIMIT, 'all');
      }
      if (version === null) return null;
      const toGroup = waiting.length < WAITING_LIMIT ? [...waiting, ...reports] : waiting;
      if (toGroup.length === 0) {
        this.#head = version;
        return null;
      }
      const reads = overlaid(
        databaseReads(trx),
        new Map([...this.#overlay].map(([id, { state }]) => [id, state])),
      );
      const grouped = await groupReports(
        reads,
        toGroup,
        version,
        new Date(),
        DEFAULT_ENGINE,
        this.#cache,
        {
          novelLimit: NOVEL_LIMIT,
        },
      );
      if (!grouped) {
        this.#stopShort();
        return null;
      }
      // Kept at once: the next batch groups from them, and expects the version this one writes.
      this.#cache.committed();
      this.#head = version + 1;
      ticket.grouped = true;
      for (const [id, state] of grouped.written) this.#overlay.set(id, { state, ticket });
      if (grouped.members.length < toGroup.length) this.#stopShort();
      // More waited than a batch places: the next batch reads again, and goes on.
      else if (toGroup.length < waiting.length + reports.length) this.#head = null;
      const last = grouped.members[grouped.members.length - 1] as Placement;
      return {
        version,
        waiting: grouped.members.slice(0, waiting.length),
        arrivals: grouped.members.slice(waiting.length),
        created: grouped.created,
        updates: grouped.updates,
        last: { createdAt: grouped.lastStoredAt, id: last.reportId },
        changes: grouped.changes,
      };
    } catch (error) {
      this.#head = null;
      this.#cache.forget();
      throw error;
    }
  }

  /** Reports are left waiting: the next batches leave them to the background grouper a while. */
  #stopShort(): void {
    this.#head = null;
    this.#deferUntil = Date.now() + DEFER_MS;
  }

  #settle(ticket: Ticket, applied: boolean): void {
    if (!this.#open.delete(ticket)) return;
    if (ticket.grouped) {
      if (applied) {
        for (const [id, entry] of this.#overlay) {
          if (entry.ticket === ticket) this.#overlay.delete(id);
        }
      } else {
        // Its pools hold what was not written, and every batch after it expects its version.
        this.#head = null;
        this.#cache.forget();
      }
    }
    if (this.#open.size > 0) return;
    const idle = this.#idle;
    this.#idle = [];
    for (const resolve of idle) resolve();
  }
}

async function readIssuesVersion(trx: Kysely<DB>): Promise<number> {
  const { rows } = await sql<{ issues_version: string | number }>`
    select issues_version from grouping_progress where id = 'default'
  `.execute(trx);
  return Number(rows[0]?.issues_version ?? 0);
}

/** A pool's key of an issue row. */
function keyOf(row: { project_id: string; tool_name: string | null; kind: string }): string {
  return JSON.stringify([row.project_id, row.tool_name, row.kind]);
}

/**
 * `base` with the issues of batches in flight laid over it: their rows as those batches write
 * them, and their new issues among their pool's candidates, as a read after their commit would
 * return them.
 */
function overlaid(base: GroupingReads, overlay: ReadonlyMap<string, IssueState>): GroupingReads {
  if (overlay.size === 0) return base;
  return {
    async candidates(keys, limit) {
      const rows = await base.candidates(keys, limit);
      const wanted = new Set(
        keys.map((k) => keyOf({ project_id: k.projectId, tool_name: k.toolName, kind: k.kind })),
      );
      const byKey = new Map<string, IssueState[]>();
      const add = (row: IssueState) => {
        const key = keyOf(row);
        const list = byKey.get(key);
        if (list) list.push(row);
        else byKey.set(key, [row]);
      };
      for (const row of rows) add(overlay.get(row.id) ?? row);
      const read = new Set(rows.map((row) => row.id));
      for (const state of overlay.values()) {
        if (!read.has(state.id) && wanted.has(keyOf(state))) add(state);
      }
      const seen = (row: IssueState) => toDate(row.last_seen).getTime();
      return [...byKey.values()].flatMap((list) =>
        list.sort((a, b) => seen(b) - seen(a)).slice(0, limit),
      );
    },
    pinned: (keys, limit) => base.pinned(keys, limit),
    issue: async (id) => overlay.get(id) ?? base.issue(id),
  };
}
