import type { Kysely } from 'kysely';
import { expect } from 'vitest';
import type { DB } from '../../src/db/schema.js';
import { iso } from '../../src/db/wire-timestamp.js';

/** A project's days as `issue id|YYYY-MM-DD` → count, for comparing. */
type Days = Record<string, number>;

/** The project's reports per issue and UTC day, counted from `report_issues` itself. */
export async function countedIssueDays(db: Kysely<DB>, projectId: string): Promise<Days> {
  const rows = await db
    .selectFrom('report_issues')
    .select(['issue_id', 'created_at'])
    .where('project_id', '=', projectId)
    .where('issue_id', 'is not', null)
    .execute();
  const days: Days = {};
  for (const row of rows) {
    const key = `${row.issue_id}|${iso(row.created_at).slice(0, 10)}`;
    days[key] = (days[key] ?? 0) + 1;
  }
  return days;
}

/** The project's rows of the rollup `issue_days` (migration 0036). */
export async function storedIssueDays(db: Kysely<DB>, projectId: string): Promise<Days> {
  const rows = await db
    .selectFrom('issue_days')
    .select(['issue_id', 'day', 'count'])
    .where('project_id', '=', projectId)
    .execute();
  return Object.fromEntries(rows.map((row) => [`${row.issue_id}|${row.day}`, Number(row.count)]));
}

/**
 * The rollup of reports per issue and day equals counting `report_issues`: no day missing,
 * none extra, none at zero. Returns the days, for a test that also checks what they are.
 */
export async function expectIssueDaysExact(db: Kysely<DB>, projectId: string): Promise<Days> {
  const counted = await countedIssueDays(db, projectId);
  expect(await storedIssueDays(db, projectId)).toEqual(counted);
  return counted;
}
