import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Dialect } from '../db/database.js';
import type { DB } from '../db/schema.js';

/**
 * An issue's reports counted by what their metadata says: the model, and the agent client with
 * its version. Integrations fill `client_name` and `client_version` (@debrief/mcp from the MCP
 * client's own), and agents often name their `model`. Null: reports that say nothing.
 */

function metadataText(dialect: Dialect, key: string): RawBuilder<string | null> {
  return dialect === 'postgres'
    ? sql<string | null>`(reports.metadata::jsonb ->> ${sql.lit(key)})`
    : sql<string | null>`cast(json_extract(reports.metadata, ${sql.lit(`$.${key}`)}) as text)`;
}

function issueReports(db: Kysely<DB>, projectId: string, issueId: string) {
  return db
    .selectFrom('report_issues')
    .innerJoin('reports', 'reports.id', 'report_issues.report_id')
    .where('report_issues.project_id', '=', projectId)
    .where('report_issues.issue_id', '=', issueId);
}

const text = (value: unknown) => (value === null || value === undefined ? null : String(value));

/** Reports of an issue per `metadata.model`, most first. */
export async function countIssueModels(
  db: Kysely<DB>,
  dialect: Dialect,
  projectId: string,
  issueId: string,
  limit: number,
) {
  const model = metadataText(dialect, 'model');
  const rows = await issueReports(db, projectId, issueId)
    .select((eb) => [model.as('model'), eb.fn.countAll<number | string>().as('n')])
    .groupBy(model)
    .orderBy('n', 'desc')
    .orderBy(model)
    .limit(limit)
    .execute();
  return rows.map((row) => ({ model: text(row.model), count: Number(row.n) }));
}

/** Reports of an issue per (`metadata.client_name`, `metadata.client_version`), most first. */
export async function countIssueClientVersions(
  db: Kysely<DB>,
  dialect: Dialect,
  projectId: string,
  issueId: string,
  limit: number,
) {
  const client = metadataText(dialect, 'client_name');
  const version = metadataText(dialect, 'client_version');
  const rows = await issueReports(db, projectId, issueId)
    .select((eb) => [
      client.as('client'),
      version.as('version'),
      eb.fn.countAll<number | string>().as('n'),
    ])
    .groupBy([client, version])
    .orderBy('n', 'desc')
    .orderBy(client)
    .orderBy(version)
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    client: text(row.client),
    version: text(row.version),
    count: Number(row.n),
  }));
}
