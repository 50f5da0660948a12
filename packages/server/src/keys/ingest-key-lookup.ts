import { namedOnPostgres } from '../db/named-statements.js';
import type { LimitColumns } from '../limits/storage-limits.js';

/**
 * What makes an ingest key active, once: issued and not revoked (rotating a key revokes the
 * old one). SQL over `ingest_keys`, so that the write path's plain statements (below) and the
 * Kysely repositories (ingest-key.repository.ts) read the same text. Free of imports but
 * db/named-statements.ts and a type: the SQLite writer's worker thread loads it.
 */
export const ACTIVE_INGEST_KEY = 'ingest_keys.revoked_at is null';

/** What an active ingest key leads to: its project, its account and their limit columns. */
export interface IngestTarget extends LimitColumns {
  ingest_key: string;
  project_id: string;
  account_id: string;
}

/** The columns findIngestTargets reads, and from where. */
const TARGET_COLUMNS = `select ingest_keys.key as ingest_key, projects.id as project_id,
        projects.account_id as account_id, accounts.monthly_quota as monthly_quota,
        accounts.quota_unlimited as quota_unlimited, projects.monthly_cap as monthly_cap,
        projects.address_daily_share as address_daily_share
      from ingest_keys
      inner join projects on projects.id = ingest_keys.project_id
      inner join accounts on accounts.id = projects.account_id`;

/**
 * PostgreSQL's lookup: every key of the batch as one array, so its text is always the same,
 * and prepared by name (db/named-statements.ts): planned once, not on every batch.
 */
const POSTGRES_TARGETS = namedOnPostgres(
  `${TARGET_COLUMNS}
      where ingest_keys.key = any($1::text[]) and ${ACTIVE_INGEST_KEY}`,
);

/** SQLite's lookup of one key. */
const SQLITE_TARGET = `${TARGET_COLUMNS}
      where ingest_keys.key = ? and ${ACTIVE_INGEST_KEY}`;

/** A statement of the write path (reports/write-path/batch-statements.ts Statement). */
export interface IngestTargetLookup {
  sql: string;
  parameters: unknown[];
  /** Its rows are IngestTarget. */
  returnsRows: true;
}

/**
 * The statements that find the project, account and limit columns (limits/storage-limits.ts)
 * of each active ingest key among `keys`, which the write path runs in each batch's own
 * transaction, with no cache, so that a rotation stops the old key at its commit. SQLite looks
 * each key up alone (its prepared statement is reused).
 */
export function findIngestTargets(
  dialect: 'sqlite' | 'postgres',
  keys: readonly string[],
): IngestTargetLookup[] {
  if (dialect === 'postgres')
    return [{ sql: POSTGRES_TARGETS, parameters: [[...keys]], returnsRows: true }];
  return keys.map((key) => ({ sql: SQLITE_TARGET, parameters: [key], returnsRows: true }));
}
