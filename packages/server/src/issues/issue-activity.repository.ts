import type { IssueActivityAction, IssueActivityEntry, IssueActorType } from '@debrief/protocol';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { toWireTimestamp } from '../db/wire-timestamp.js';
import { newId } from '../ids.js';

/** Who did a triage action, as its activity shows it. */
export interface IssueActor {
  type: IssueActorType;
  /** The user's email, or the API key's name and prefix; null for the system. */
  name: string | null;
}

export const SYSTEM_ACTOR: IssueActor = { type: 'system', name: null };

/** One entry of an issue's history, as a triage action hands it over. */
export interface IssueActivityRecord {
  projectId: string;
  issueId: string;
  action: IssueActivityAction;
  actor: IssueActor;
  from?: string | null;
  to?: string | null;
  relatedIssueId?: string | null;
  reportId?: string | null;
  at: Date;
}

/** A note or title is shown in the history cut to this, the way a sample is. */
const VALUE_MAX = 280;

const cut = (value: string | null | undefined) =>
  value === undefined || value === null ? null : value.slice(0, VALUE_MAX);

/**
 * Records one entry of an issue's history. Call it with the transaction of the action it
 * records, so the history never shows what did not commit, nor misses what did.
 */
export async function recordIssueActivity(
  trx: Kysely<DB>,
  entry: IssueActivityRecord,
): Promise<void> {
  await trx
    .insertInto('issue_activity')
    .values({
      id: newId(entry.at.getTime()),
      project_id: entry.projectId,
      issue_id: entry.issueId,
      action: entry.action,
      actor_type: entry.actor.type,
      actor_name: entry.actor.name,
      from_value: cut(entry.from),
      to_value: cut(entry.to),
      related_issue_id: entry.relatedIssueId ?? null,
      report_id: entry.reportId ?? null,
      created_at: entry.at.toISOString(),
    })
    .execute();
}

/** An issue's most recent `limit` entries, newest first. */
export async function listIssueActivity(
  db: Kysely<DB>,
  issueId: string,
  limit: number,
): Promise<IssueActivityEntry[]> {
  const rows = await db
    .selectFrom('issue_activity')
    .selectAll()
    .where('issue_id', '=', issueId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    action: row.action as IssueActivityAction,
    actor: { type: row.actor_type as IssueActorType, name: row.actor_name },
    from: row.from_value,
    to: row.to_value,
    related_issue_id: row.related_issue_id,
    report_id: row.report_id,
    created_at: toWireTimestamp(row.created_at),
  }));
}
