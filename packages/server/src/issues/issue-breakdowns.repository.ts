import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Dialect } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { byCodePoint } from '../reports/report.repository.js';
import { issueReports } from './issue.repository.js';

/**
 * The breakdowns of an issue's page: its reports counted by source and by what their metadata
 * says (the model, the agent client with its version). Integrations fill `client_name` and
 * `client_version` (@debrief/mcp from the MCP client's own), and agents often name their
 * `model`. Null: reports that say nothing. Its reports per day: issue-days.repository.ts.
 */

function metadataText(dialect: Dialect, key: string): RawBuilder<string | null> {
  return dialect === 'postgres'
    ? sql<string | null>`(reports.metadata::jsonb ->> ${sql.lit(key)})`
    : sql<string | null>`cast(json_extract(reports.metadata, ${sql.lit(`$.${key}`)}) as text)`;
}

/** Reports of an issue per source, most first. */
export async function countIssueSources(
  db: Kysely<DB>,
  dialect: Dialect,
  projectId: string,
  issueId: string,
  limit: number,
) {
  const rows = await issueReports(db, projectId, issueId)
    .select((eb) => ['reports.source', eb.fn.countAll<number | string>().as('n')])
    .groupBy('reports.source')
    .orderBy('n', 'desc')
    .orderBy(byCodePoint(dialect, 'reports.source'))
    .limit(limit)
    .execute();
  return rows.map((row) => ({ source: row.source, count: Number(row.n) }));
}

/**
 * Reports of an issue per agent client: `metadata.client_name`, which @debrief/mcp fills from
 * the MCP client's own name (and other integrations may send). Null: reports that name none.
 */
export async function countIssueClients(
  db: Kysely<DB>,
  dialect: Dialect,
  projectId: string,
  issueId: string,
  limit: number,
) {
  const client =
    dialect === 'postgres'
      ? sql<string | null>`(reports.metadata::jsonb ->> 'client_name')`
      : sql<string | null>`json_extract(reports.metadata, '$.client_name')`;
  const rows = await issueReports(db, projectId, issueId)
    .select((eb) => [client.as('client'), eb.fn.countAll<number | string>().as('n')])
    .groupBy(client)
    .orderBy('n', 'desc')
    .orderBy(client)
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    client: row.client === null ? null : String(row.client),
    count: Number(row.n),
  }));
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
