import type { ExpressionBuilder, Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

export interface MuteRow {
  id: string;
  project_id: string;
  issue_id: string;
  destination_id: string | null;
  until: Date | string | null;
  until_count: number | null;
  created_at: Date | string;
}

const COLUMNS = [
  'id',
  'project_id',
  'issue_id',
  'destination_id',
  'until',
  'until_count',
  'created_at',
] as const;

export async function insertMute(db: Kysely<DB>, row: MuteRow): Promise<void> {
  await db
    .insertInto('notification_mutes')
    .values({
      ...row,
      until: row.until === null ? null : new Date(row.until).toISOString(),
      created_at: new Date(row.created_at).toISOString(),
    })
    .execute();
}

export async function listIssueMutes(db: Kysely<DB>, projectId: string, issueId: string) {
  return db
    .selectFrom('notification_mutes')
    .select(COLUMNS)
    .where('project_id', '=', projectId)
    .where('issue_id', '=', issueId)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
}

export async function deleteMuteRow(
  db: Kysely<DB>,
  projectId: string,
  issueId: string,
  muteId: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('notification_mutes')
    .where('project_id', '=', projectId)
    .where('issue_id', '=', issueId)
    .where('id', '=', muteId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Of these issues of a project, the ones a mute silences at `now` (for any destination): the
 * issues list marks them. One statement over the mutes' (project, issue) index.
 */
export async function mutedIssueIds(
  db: Kysely<DB>,
  projectId: string,
  issueIds: readonly string[],
  now: Date,
): Promise<Set<string>> {
  if (issueIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('notification_mutes')
    .innerJoin('issues', 'issues.id', 'notification_mutes.issue_id')
    .select('notification_mutes.issue_id')
    .distinct()
    .where('notification_mutes.project_id', '=', projectId)
    .where('notification_mutes.issue_id', 'in', issueIds)
    .where((eb) => stillHolds(eb, now))
    .execute();
  return new Set(rows.map((row) => row.issue_id));
}

/**
 * The mutes of an issue that still hold at `now` (time not reached, count not reached),
 * with the issue's count read in the same statement.
 */
export async function activeMuteRows(
  db: Kysely<DB>,
  projectId: string,
  issueId: string,
  now: Date,
): Promise<{ destination_id: string | null }[]> {
  return db
    .selectFrom('notification_mutes')
    .innerJoin('issues', 'issues.id', 'notification_mutes.issue_id')
    .select('notification_mutes.destination_id')
    .where('notification_mutes.project_id', '=', projectId)
    .where('notification_mutes.issue_id', '=', issueId)
    .where((eb) => stillHolds(eb, now))
    .execute();
}

/** A mute holds while its time is not reached and its issue's count is below its end. */
function stillHolds(eb: ExpressionBuilder<DB, 'notification_mutes' | 'issues'>, now: Date) {
  return eb.and([
    eb.or([
      eb('notification_mutes.until', 'is', null),
      eb('notification_mutes.until', '>', now.toISOString()),
    ]),
    eb.or([
      eb('notification_mutes.until_count', 'is', null),
      eb('issues.report_count', '<', eb.ref('notification_mutes.until_count')),
    ]),
  ]);
}

export async function issueReportCount(
  db: Kysely<DB>,
  projectId: string,
  issueId: string,
): Promise<number | null> {
  const row = await db
    .selectFrom('issues')
    .select('report_count')
    .where('project_id', '=', projectId)
    .where('id', '=', issueId)
    .executeTakeFirst();
  return row ? Number(row.report_count) : null;
}
