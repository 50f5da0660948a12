import { type Kysely, sql } from 'kysely';
import { UNROUTED_READ } from '../../db/read-routing.js';
import type { DB } from '../../db/schema.js';

/** A report label column of `report_counts` ('' there stands for an absent label). */
export type LabelColumn = 'tool_name' | 'source';

/*
 * These reads of report_counts run on the submit path, before the writer, marked UNROUTED_READ
 * on purpose: the read routing (db/read-routing.ts) would otherwise send them behind the
 * writer's barrier, and a submit that waited for the writer's flush before it is written would
 * wait a commit longer. Labels admitted and not yet committed are counted in memory
 * (label-caps.ts), so reading ahead of the writer loses none of them.
 */

/**
 * Whether the project has stored a report with this label: one seek in report_counts' primary
 * key (project_id, tool_name, …) or in report_counts_project_source (migration 0009).
 */
export async function labelKnown(
  db: Kysely<DB>,
  projectId: string,
  column: LabelColumn,
  value: string,
): Promise<boolean> {
  const { rows } = await sql`
    ${UNROUTED_READ} select 1 from report_counts
    where project_id = ${projectId} and ${sql.ref(column)} = ${value}
    limit 1
  `.execute(db);
  return rows.length > 0;
}

/** Distinct labels of the project, counted up to `atMost` (an index-only scan of at most that). */
export async function countLabels(
  db: Kysely<DB>,
  projectId: string,
  column: LabelColumn,
  atMost: number,
): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`
    ${UNROUTED_READ} select count(*) as n from (
      select distinct ${sql.ref(column)} from report_counts
      where project_id = ${projectId} and ${sql.ref(column)} <> ''
      limit ${atMost}
    ) as labels
  `.execute(db);
  return Number(rows[0]?.n ?? 0);
}

export async function setRedactPersonalData(
  db: Kysely<DB>,
  projectId: string,
  on: boolean,
): Promise<void> {
  await db
    .updateTable('projects')
    .set({ redact_personal_data: on ? 1 : 0 })
    .where('id', '=', projectId)
    .execute();
}

export async function getRedactPersonalData(db: Kysely<DB>, projectId: string): Promise<boolean> {
  const row = await db
    .selectFrom('projects')
    .select('redact_personal_data')
    .where('id', '=', projectId)
    .executeTakeFirst();
  return row?.redact_personal_data === 1;
}
