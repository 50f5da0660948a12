/**
 * Fills projects with synthetic reports for the read benchmark, straight into the database
 * (before the server starts), in large multi-row inserts: a million rows take seconds to a
 * minute instead of the hours a million POSTs would. The counters the server keeps are then
 * rebuilt from those reports (seed-counters.ts), so the database holds what the API would have
 * produced.
 */
import { randomBytes } from 'node:crypto';
import { query, type SeedConnection } from './seed-connection.js';

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

export const DETAILS = [
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

/**
 * UUIDv7 without dashes, with the report's own time, so ids sort like created_at. The random
 * part comes from a pool filled once per batch: one randomBytes call per row cost 18 s of a
 * million-row seed.
 */
function uuidv7Hex(ms: number, seq: number, pool: Buffer, at: number): string {
  pool[at] = (pool[at]! & 0x3f) | 0x80;
  return (
    ms.toString(16).padStart(12, '0') +
    (0x7000 | (seq & 0xfff)).toString(16) +
    pool.toString('hex', at, at + 8)
  );
}

export interface SeedPlan {
  projectId: string;
  count: number;
  /** The reports are spread evenly over the `spanMs` before `endMs`, oldest first. */
  spanMs: number;
  endMs: number;
  /** The oldest report gets RARE_TOOL_NAME. */
  rareOldest?: boolean;
}

const COLUMNS = [
  'id',
  'project_id',
  'outcome',
  'tool_name',
  'source',
  'details',
  'metadata',
  'created_at',
] as const;
type Row = [string, string, string, string | null, string, string, string | null, string];

/**
 * Report i of the plan. Three independent low-discrepancy sequences (golden ratio, √2, and the
 * plastic number) pick the outcome, the tool and the source, so every combination of filters
 * occurs (a shared `i mod n` would tie each tool to one source). Tools are skewed like real
 * use: the first ones are called far more often than the last; one report in ten has none.
 */
function rowAt(plan: SeedPlan, i: number, pool: Buffer, at: number): Row {
  const ms = plan.endMs - plan.spanMs + Math.floor((i / plan.count) * plan.spanMs);
  const outcome = pickOutcome((i * 0.618_033_988_75) % 1);
  const u = (i * 0.414_213_562_37) % 1;
  const tool =
    plan.rareOldest && i === 0
      ? RARE_TOOL_NAME
      : i % 10 === 9
        ? null
        : TOOL_NAMES[Math.floor(u * u * TOOL_NAMES.length)]!;
  const source = SOURCES[Math.floor(((i * 0.754_877_666_25) % 1) * SOURCES.length)]!;
  return [
    uuidv7Hex(ms, i, pool, at),
    plan.projectId,
    outcome,
    tool,
    source,
    DETAILS[i % DETAILS.length]!,
    i % 4 === 0 ? JSON.stringify({ model: 'x-1', attempt: (i % 3) + 1 }) : null,
    new Date(ms).toISOString(),
  ];
}

/** Rows per statement: 8 columns × 500 stays under SQLite's 32,766 parameters. */
const SQLITE_BATCH = 500;
/** Rows per transaction on SQLite: keeps the WAL (checkpointed after each commit) bounded. */
const SQLITE_COMMIT = 50_000;
/** Rows per `unnest` insert on PostgreSQL: eight array parameters, whatever the count. */
const POSTGRES_BATCH = 10_000;

function insertSqlite(conn: Extract<SeedConnection, { dialect: 'sqlite' }>, plan: SeedPlan) {
  const db = conn.sqlite;
  const tuple = `(${COLUMNS.map(() => '?').join(', ')})`;
  const statementFor = (rows: number) =>
    db.prepare(
      `insert into reports (${COLUMNS.join(', ')}) values ${Array(rows).fill(tuple).join(', ')}`,
    );
  const full = statementFor(SQLITE_BATCH);
  const chunk = db.transaction((start: number, end: number) => {
    for (let at = start; at < end; at += SQLITE_BATCH) {
      const rows = Math.min(SQLITE_BATCH, end - at);
      const values: unknown[] = [];
      const pool = randomBytes(8 * rows);
      for (let i = at; i < at + rows; i++) values.push(...rowAt(plan, i, pool, 8 * (i - at)));
      (rows === SQLITE_BATCH ? full : statementFor(rows)).run(...values);
    }
  });
  for (let start = 0; start < plan.count; start += SQLITE_COMMIT)
    chunk(start, Math.min(plan.count, start + SQLITE_COMMIT));
}

async function insertPostgres(conn: SeedConnection, plan: SeedPlan) {
  const types = ['text', 'text', 'text', 'text', 'text', 'text', 'text', 'timestamptz'];
  const text = `insert into reports (${COLUMNS.join(', ')}) select * from unnest(${types
    .map((type) => `?::${type}[]`)
    .join(', ')})`;
  await query(conn, 'begin');
  for (let start = 0; start < plan.count; start += POSTGRES_BATCH) {
    const columns: unknown[][] = COLUMNS.map(() => []);
    const pool = randomBytes(8 * POSTGRES_BATCH);
    for (let i = start; i < Math.min(plan.count, start + POSTGRES_BATCH); i++) {
      const row = rowAt(plan, i, pool, 8 * (i - start));
      for (let c = 0; c < row.length; c++) columns[c]!.push(row[c]);
    }
    await query(conn, text, columns);
  }
  await query(conn, 'commit');
}

/** Inserts the plan's reports (the counters are rebuilt afterwards: seed-counters.ts). */
export async function seedReports(conn: SeedConnection, plan: SeedPlan): Promise<void> {
  if (conn.dialect === 'sqlite') insertSqlite(conn, plan);
  else await insertPostgres(conn, plan);
}
