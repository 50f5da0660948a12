import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { iso } from '../db/wire-timestamp.js';

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

/**
 * Changes to reports per issue and day, summed in memory before they are written: a grouping
 * batch of a thousand reports is a few issues over a day or two, so a few rows.
 */
export class IssueDayTally {
  readonly #rows = new Map<
    string,
    { issueId: string; projectId: string; day: string; n: number }
  >();

  /** `n` reports (negative: taken away) of `issueId` stored at `at`. */
  add(issueId: string, projectId: string, at: Date | string, n = 1): void {
    const day = utcDayOf(at);
    const key = `${issueId}\u0000${day}`;
    const row = this.#rows.get(key);
    if (row) row.n += n;
    else this.#rows.set(key, { issueId, projectId, day, n });
  }

  rows() {
    return [...this.#rows.values()].filter((row) => row.n !== 0);
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
  const rows = await db
    .selectFrom('issue_days')
    .select(['day', 'count'])
    .where('issue_id', '=', issueId)
    .where('day', '>=', utcDayOf(from))
    .where('project_id', '=', projectId)
    .orderBy('day')
    .execute();
  return rows.map((row) => ({ day: row.day, count: Number(row.count) }));
}

/**
 * Reports of each of `issueIds` per UTC day from the day of `from`, in one query for a page of
 * the list: issue id → its days that had reports, oldest first. Issues without any are absent.
 */
export async function countDaysOfIssues(
  db: Kysely<DB>,
  projectId: string,
  issueIds: readonly string[],
  from: Date,
): Promise<Map<string, { day: string; count: number }[]>> {
  const byIssue = new Map<string, { day: string; count: number }[]>();
  if (issueIds.length === 0) return byIssue;
  const rows = await db
    .selectFrom('issue_days')
    .select(['issue_id', 'day', 'count'])
    .where('issue_id', 'in', issueIds)
    .where('day', '>=', utcDayOf(from))
    .where('project_id', '=', projectId)
    .orderBy('issue_id')
    .orderBy('day')
    .execute();
  for (const row of rows) {
    const days = byIssue.get(row.issue_id) ?? [];
    days.push({ day: row.day, count: Number(row.count) });
    byIssue.set(row.issue_id, days);
  }
  return byIssue;
}
