/**
 * Fills a project with synthetic reports for the read benchmark, straight into the database
 * file (before the server starts) through Kysely, in large multi-row inserts inside one
 * transaction: 100,000 rows take seconds instead of the minutes 100,000 POSTs would. It keeps
 * the server's invariants that report_counts holds the per-(tool, source, outcome) totals and
 * the rollups the same per UTC hour and day (migrations 0004 and 0010).
 */
import { randomBytes } from 'node:crypto';
import type { DB } from '@debrief/server';
import SQLite from 'better-sqlite3';
import { type Insertable, Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';

/** The tables the seeder writes: the reports, and the server's running counters (0004). */
type SeedDB = Pick<DB, 'reports' | 'report_counts' | 'report_rollups' | 'report_rollups_daily'>;

export const TOOL_NAMES = Array.from(
  { length: 30 },
  (_, i) => `tool_${String(i + 1).padStart(2, '0')}`,
);
export const SOURCES = ['claude-code', 'cursor', 'codex', 'custom-agent', 'ci-bot'];
/**
 * The tool of the oldest report only: a filter that a walk of the project's reports, newest
 * first, would answer last. The tool index seeks to it.
 */
export const RARE_TOOL_NAME = 'tool_used_once';

/** A realistic skew: mostly successes, some failures, a tail of the rest. */
const OUTCOME_WEIGHTS: [string, number][] = [
  ['success', 0.55],
  ['failure', 0.2],
  ['confusing', 0.12],
  ['gave_up', 0.08],
  ['request', 0.05],
];

const DETAILS = [
  'Found the file on the first try.',
  'The search returned nothing for a query that matches three files in the repository.',
  'The parameter "path" was documented as optional but the call failed without it.',
  'Timed out after 30 seconds while listing a large directory; retried twice and stopped.',
  'Would love a dry-run flag so I can preview the change before applying it.',
];

function pickOutcome(r: number): string {
  let acc = 0;
  for (const [outcome, weight] of OUTCOME_WEIGHTS) {
    acc += weight;
    if (r < acc) return outcome;
  }
  return 'success';
}

/** UUIDv7 without dashes, with the report's own time, so ids sort like created_at. */
function uuidv7Hex(ms: number, seq: number): string {
  const random = randomBytes(8);
  random[0] = (random[0]! & 0x3f) | 0x80;
  return (
    ms.toString(16).padStart(12, '0') +
    (0x7000 | (seq & 0xfff)).toString(16) +
    random.toString('hex')
  );
}

function openKysely(databaseUrl: string): Kysely<SeedDB> {
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    return new Kysely({
      dialect: new PostgresDialect({
        pool: new pg.Pool({ connectionString: databaseUrl, max: 1 }),
      }),
    });
  }
  const sqlite = new SQLite(databaseUrl);
  sqlite.pragma('journal_mode = WAL');
  return new Kysely({ dialect: new SqliteDialect({ database: sqlite }) });
}

/**
 * Inserts `count` reports into the project, spread evenly over the last `days` days, with
 * ~30 tool names (one report in ten has none; the oldest has RARE_TOOL_NAME) and 5 sources.
 * Deterministic mix, random ids.
 */
export async function seedReports(
  databaseUrl: string,
  projectId: string,
  count: number,
  days = 60,
): Promise<void> {
  const db = openKysely(databaseUrl);
  const postgres = /^postgres(ql)?:\/\//.test(databaseUrl);
  const now = Date.now();
  const span = days * 86_400_000;
  // 8 columns a row: 1,000 rows stay under both SQLite's 32,766 and PostgreSQL's 65,535 parameters.
  const batchSize = 1000;
  const counts = new Map<string, Insertable<SeedDB['report_counts']>>();
  try {
    await db.transaction().execute(async (trx) => {
      for (let start = 0; start < count; start += batchSize) {
        const rows: Insertable<SeedDB['reports']>[] = [];
        for (let i = start; i < Math.min(count, start + batchSize); i++) {
          // Oldest first, so the newest report is i = count - 1.
          const ms = now - span + Math.floor((i / count) * span);
          // A cheap deterministic spread (golden-ratio sequence) instead of Math.random.
          const r = (i * 0.618_033_988_75) % 1;
          rows.push({
            id: uuidv7Hex(ms, i),
            project_id: projectId,
            outcome: pickOutcome(r),
            tool_name:
              i === 0
                ? RARE_TOOL_NAME
                : i % 10 === 9
                  ? null
                  : TOOL_NAMES[(i * 7) % TOOL_NAMES.length]!,
            source: SOURCES[(i * 3) % SOURCES.length]!,
            details: DETAILS[i % DETAILS.length]!,
            metadata: i % 4 === 0 ? JSON.stringify({ model: 'x-1', attempt: (i % 3) + 1 }) : null,
            created_at: new Date(ms).toISOString(),
          });
        }
        await trx.insertInto('reports').values(rows).execute();
        for (const row of rows) {
          const key = `${row.tool_name ?? ''}\u0000${row.source ?? ''}\u0000${row.outcome}`;
          const entry = counts.get(key);
          if (entry) entry.count += 1;
          else
            counts.set(key, {
              project_id: projectId,
              tool_name: row.tool_name ?? '',
              source: row.source ?? '',
              outcome: row.outcome,
              count: 1,
            });
        }
      }
      const entries = [...counts.values()];
      for (let start = 0; start < entries.length; start += batchSize)
        await trx
          .insertInto('report_counts')
          .values(entries.slice(start, start + batchSize))
          .execute();
      // The rollups, grouped by the database as migration 0010 backfills them.
      for (const [table, column, field] of [
        ['report_rollups', 'hour', 'hour'],
        ['report_rollups_daily', 'day', 'day'],
      ] as const) {
        const start = postgres
          ? sql`date_trunc(${sql.lit(field)}, created_at at time zone 'UTC') at time zone 'UTC'`
          : column === 'hour'
            ? sql`substr(created_at, 1, 13) || ':00:00.000Z'`
            : sql`substr(created_at, 1, 10) || 'T00:00:00.000Z'`;
        await sql`
          insert into ${sql.table(table)}
            (project_id, ${sql.ref(column)}, tool_name, source, outcome, count)
          select project_id, ${start}, coalesce(tool_name, ''), coalesce(source, ''), outcome,
            count(*)
          from reports where project_id = ${projectId}
          group by 1, 2, 3, 4, 5
        `.execute(trx);
      }
    });
    // PostgreSQL's autovacuum analyzes a table after a bulk insert like this one within a
    // minute; do it now rather than measure plans made without statistics. (SQLite has no
    // automatic ANALYZE, and the server does not run one: it is measured as it would run.)
    if (postgres) {
      await sql`analyze reports`.execute(db);
      await sql`analyze report_rollups`.execute(db);
      await sql`analyze report_rollups_daily`.execute(db);
    }
  } finally {
    await db.destroy();
  }
}
