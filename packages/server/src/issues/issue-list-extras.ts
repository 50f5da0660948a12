import type { DayCount } from '@debrief/protocol';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { countDaysOfIssues } from './issue-days.repository.js';
import { type FlaggedRow, findPossibleDuplicates } from './similar/possible-duplicates.js';

/** A list page's row as the extras read it. */
export interface ListedRow extends FlaggedRow {
  last_seen: string | Date;
}

export interface RowExtras {
  trend: DayCount[];
  possibleDuplicateOf: string | null;
}

/**
 * How long a row's possible-duplicate flag is used before it is worked out again: it also
 * depends on other issues (the candidates it is compared with). A triage change made here
 * drops every flag at once (`forgetFlags`); one made on another instance shows within this.
 */
const FLAG_FRESH_MS = 5_000;
/** Rows kept at once; past it, the cache starts afresh (a burst of projects). */
const MAX_ROWS = 100_000;

/**
 * What the issues list adds to each row beyond its columns: its trend (reports per UTC day,
 * issue_days) and its possible-duplicate flag (similar/possible-duplicates.ts), kept per issue
 * in memory. The list is the project's front page, asked again on every live update by every
 * open dashboard, and working these out took most of its cost (two statements with a page of
 * ids, a union of a part per tool and the engine's comparisons).
 *
 * A trend is kept for the issue's report count, last report and the window's first day: every
 * placement, move, merge and unmerge changes the count (or the last report), so a kept trend is
 * the one issue_days holds. A flag is kept for the issue's report count too, and FLAG_FRESH_MS.
 */
export class IssueListExtras {
  readonly #trends = new Map<string, { key: string; trend: DayCount[] }>();
  readonly #flags = new Map<string, { count: string; at: number; of: string | null }>();

  constructor(private readonly clock: () => number = Date.now) {}

  /** Each row's extras, in the rows' order; only the rows with none kept are read. */
  async of(
    db: Kysely<DB>,
    projectId: string,
    rows: readonly ListedRow[],
    trendSince: Date,
  ): Promise<RowExtras[]> {
    const now = this.clock();
    const since = trendSince.toISOString().slice(0, 10);
    // The last report as stored (SQLite's text, PostgreSQL's Date): compared, never parsed.
    const trendKey = (row: ListedRow) =>
      `${row.report_count}:${row.last_seen instanceof Date ? row.last_seen.getTime() : row.last_seen}:${since}`;
    const trendsMissing = rows.filter((row) => this.#trends.get(row.id)?.key !== trendKey(row));
    const flagsMissing = rows.filter((row) => {
      const kept = this.#flags.get(row.id);
      return !kept || kept.count !== String(row.report_count) || now - kept.at > FLAG_FRESH_MS;
    });
    const [trends, flags] = await Promise.all([
      trendsMissing.length === 0
        ? null
        : countDaysOfIssues(
            db,
            projectId,
            trendsMissing.map((row) => row.id),
            trendSince,
          ),
      flagsMissing.length === 0 ? null : findPossibleDuplicates(db, projectId, flagsMissing),
    ]);
    if (this.#trends.size + trendsMissing.length > MAX_ROWS) this.#trends.clear();
    if (this.#flags.size + flagsMissing.length > MAX_ROWS) this.#flags.clear();
    for (const row of trendsMissing)
      this.#trends.set(row.id, { key: trendKey(row), trend: trends?.get(row.id) ?? [] });
    for (const row of flagsMissing)
      this.#flags.set(row.id, {
        count: String(row.report_count),
        at: now,
        of: flags?.get(row.id) ?? null,
      });
    // Every row's are kept by now: the writes above follow the reads with no await between.
    return rows.map((row) => ({
      trend: this.#trends.get(row.id)?.trend ?? [],
      possibleDuplicateOf: this.#flags.get(row.id)?.of ?? null,
    }));
  }

  /** A triage change here (a merge, a move, a rejected suggestion): every flag is worked out again. */
  forgetFlags(): void {
    this.#flags.clear();
  }
}
