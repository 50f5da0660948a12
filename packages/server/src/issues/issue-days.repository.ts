import { type Kysely, sql } from 'kysely';
import { bindIds, boundIds, compiledShapes } from '../db/compiled-shapes.js';
import { type DB, toDate } from '../db/schema.js';
import { iso } from '../db/wire-timestamp.js';
import { DAY_MS } from '../time/utc-time.js';

/**
 * Reports per issue and UTC day (`issue_days`, migration 0036), kept equal to counting the
 * issues' rows of `report_issues` per day: every writer of `report_issues.issue_id` changes the
 * days here in its own transaction (the grouper's placements, a moved report, a merge, an
 * unmerge), through the functions below. The issues list's `trend` and the issue page's `daily`
 * read them: a few rows per issue, where counting `report_issues` read one per report.
 */

/** The UTC date (`YYYY-MM-DD`) of a stored time. */
export function utcDayOf(at: Date | string): string {
  return iso(at).slice(0, 10);
}

interface TallyRow {
  issueId: string;
  projectId: string;
  day: string;
  n: number;
}

/**
 * Changes to reports per issue and day, summed in memory before they are written: a grouping
 * batch of a thousand reports is a few issues over a day or two, so a few rows. Reports come in
 * runs of one issue and day (report order, agents repeating themselves), so a report like the
 * one before costs a comparison: the grouper adds every report it places.
 */
export class IssueDayTally {
  /** Issue → day → its row. */
  readonly #rows = new Map<string, Map<string, TallyRow>>();
  #last: TallyRow | undefined;
  /** The UTC day last computed from a Date (PostgreSQL's times), and the span it covers. */
  #dayText = '';
  #dayStart = 0;
  #dayEnd = 0;

  /** `n` reports (negative: taken away) of `issueId` stored at `at`. */
  add(issueId: string, projectId: string, at: Date | string, n = 1): void {
    const day = this.#dayOf(at);
    const last = this.#last;
    if (last !== undefined && last.issueId === issueId && last.day === day) {
      last.n += n;
      return;
    }
    let days = this.#rows.get(issueId);
    if (!days) {
      days = new Map();
      this.#rows.set(issueId, days);
    }
    let row = days.get(day);
    if (row) row.n += n;
    else {
      row = { issueId, projectId, day, n };
      days.set(day, row);
    }
    this.#last = row;
  }

  #dayOf(at: Date | string): string {
    // SQLite's stored text (Date.toISOString()'s) starts with its UTC day.
    if (typeof at === 'string' && at.length === 24 && at.charCodeAt(23) === 90) {
      return at.slice(0, 10);
    }
    const ms = toDate(at).getTime();
    if (ms < this.#dayStart || ms >= this.#dayEnd) {
      this.#dayStart = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
      this.#dayEnd = this.#dayStart + DAY_MS;
      this.#dayText = new Date(this.#dayStart).toISOString().slice(0, 10);
    }
    return this.#dayText;
  }

  rows(): TallyRow[] {
    const rows: TallyRow[] = [];
    for (const days of this.#rows.values())
      for (const row of days.values()) if (row.n !== 0) rows.push(row);
    return rows;
  }
}

/** Rows of one upsert: 4 parameters each, well under either dialect's limit. */
const UPSERT_ROWS = 1000;

/**
 * Writes a tally: one upsert per UPSERT_ROWS (issue, day) pairs, adding to the counts there;
 * the days a removal emptied go.
 */
export async function addIssueDays(trx: Kysely<DB>, tally: IssueDayTally): Promise<void> {
  const rows = tally.rows();
  for (let i = 0; i < rows.length; i += UPSERT_ROWS) {
    await trx
      .insertInto('issue_days')
      .values(
        rows.slice(i, i + UPSERT_ROWS).map((row) => ({
          issue_id: row.issueId,
          day: row.day,
          project_id: row.projectId,
          count: row.n,
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(['issue_id', 'day'])
          .doUpdateSet((eb) => ({ count: eb('issue_days.count', '+', eb.ref('excluded.count')) })),
      )
      .execute();
  }
  const emptied = [...new Set(rows.filter((row) => row.n < 0).map((row) => row.issueId))];
  for (let i = 0; i < emptied.length; i += UPSERT_ROWS) {
    await trx
      .deleteFrom('issue_days')
      .where('issue_id', 'in', emptied.slice(i, i + UPSERT_ROWS))
      .where('count', '<=', 0)
      .execute();
  }
}

/** Every day of `fromId` is added to `intoId`'s (a merge moved all its reports there). */
export async function moveIssueDays(trx: Kysely<DB>, fromId: string, intoId: string) {
  // The WHERE also settles SQLite's reading of `insert … select … on conflict`.
  await trx
    .insertInto('issue_days')
    .columns(['issue_id', 'day', 'project_id', 'count'])
    .expression((eb) =>
      eb
        .selectFrom('issue_days')
        .select((s) => [s.val(intoId).as('issue_id'), 'day', 'project_id', 'count'])
        .where('issue_id', '=', fromId),
    )
    .onConflict((oc) =>
      oc
        .columns(['issue_id', 'day'])
        .doUpdateSet((eb) => ({ count: eb('issue_days.count', '+', eb.ref('excluded.count')) })),
    )
    .execute();
  await deleteIssueDays(trx, fromId);
}

export async function deleteIssueDays(trx: Kysely<DB>, issueId: string): Promise<void> {
  await trx.deleteFrom('issue_days').where('issue_id', '=', issueId).execute();
}

/**
 * Reports of an issue per UTC day from the day of `from` (the start of a UTC day), oldest
 * first; days without reports are absent.
 */
export async function countIssueDays(
  db: Kysely<DB>,
  projectId: string,
  issueId: string,
  from: Date,
): Promise<{ day: string; count: number }[]> {
  return (await countDaysOfIssues(db, projectId, [issueId], from)).get(issueId) ?? [];
}

/** The statement of countDaysOfIssues, compiled once per count of issues (a page holds ≤ 100). */
const daysOfIssues = compiledShapes((db: Kysely<DB>, count: number, p: Record<string, string>) =>
  db
    .selectFrom('issue_days')
    .select(['issue_id', sql<string>`string_agg(day || ' ' || count, ' ')`.as('days')])
    .where('issue_id', 'in', boundIds(count, p))
    .where('day', '>=', p.from as string)
    .where('project_id', '=', p.project as string)
    .groupBy('issue_id'),
);

/**
 * Reports of each of `issueIds` per UTC day from the day of `from`, in one query for a page of
 * the list: issue id → its days that had reports, oldest first. Issues without any are absent.
 * A row per issue, its days joined into one text (`day count day count …`, both dialects'
 * `string_agg`): a page of 50 issues × 14 days read as 700 rows cost SQLite's connection ~0.6 ms,
 * as 50 ~0.2.
 */
export async function countDaysOfIssues(
  db: Kysely<DB>,
  projectId: string,
  issueIds: readonly string[],
  from: Date,
): Promise<Map<string, { day: string; count: number }[]>> {
  const byIssue = new Map<string, { day: string; count: number }[]>();
  if (issueIds.length === 0) return byIssue;
  const params = bindIds(issueIds, { project: projectId, from: utcDayOf(from) });
  const { rows } = await db.executeQuery(daysOfIssues(db, issueIds.length, params));
  for (const row of rows) {
    const parts = row.days.split(' ');
    const days: { day: string; count: number }[] = [];
    for (let i = 0; i + 1 < parts.length; i += 2)
      days.push({ day: parts[i] as string, count: Number(parts[i + 1]) });
    // Sorted here, not by the aggregate: an ORDER BY in it cost SQLite a sort per issue (a
    // temporary B-tree), where its rows already come in key order.
    days.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
    byIssue.set(row.issue_id, days);
  }
  return byIssue;
}
