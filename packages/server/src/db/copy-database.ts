import { existsSync } from 'node:fs';
import type SQLite from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';
import { printableDatabaseUrl } from '../errors/startup-error.js';
import { TABLE_PLAN, type TablePlan } from './copy-tables.js';
import { isPostgresUrl } from './database.js';
import { openMigratedDatabase } from './migrate.js';
import type { DB } from './schema.js';
import { openSqliteConnection, sqlitePath } from './sqlite-connection.js';

/**
 * `debrief copy`: moves a SQLite database to an empty PostgreSQL database (docs/operating.md,
 * PostgreSQL). The copy is generic: tables and columns are read from the databases, and
 * copy-tables.ts only says which tables go where, in foreign-key order.
 *
 * - The source is brought up to date by the same migrations first, then held with a write
 *   lock (`begin immediate`) for the whole copy: the copy is one consistent snapshot, and a
 *   server still writing to the file is noticed (the lock is taken) instead of losing the
 *   reports it would store meanwhile.
 * - The target is migrated, must hold no rows in any table the copy fills, and is filled in one
 *   transaction: a copy that fails (or whose counts do not match) leaves it empty, ready for
 *   another try.
 * - Rows are streamed from SQLite (an iterator, not an array) and inserted in multi-row batches,
 *   so memory stays flat at millions of reports.
 * - Before the commit, every target table's row count is compared with the source's.
 */
export class CopyError extends Error {
  override name = 'CopyError';
}

export interface CopyOptions {
  /** A SQLite DATABASE_URL (a file path, `sqlite:` or `file:`). */
  from: string;
  /** A `postgres://` URL of an empty (or new, unmigrated) database. */
  to: string;
  /** Progress lines (the CLI writes them to stderr). */
  progress?: (line: string) => void;
}

export interface TableCopied {
  table: string;
  into: string;
  rows: number;
}

/** Rows per insert, and bound parameters per insert (PostgreSQL allows 65,535). */
const BATCH_ROWS = 1000;
const BATCH_PARAMETERS = 30_000;
const PROGRESS_EVERY_MS = 2000;

export async function copyDatabase(options: CopyOptions): Promise<TableCopied[]> {
  const progress = options.progress ?? (() => {});
  if (isPostgresUrl(options.from))
    throw new CopyError('--from must name a SQLite database file, not a PostgreSQL URL.');
  if (!isPostgresUrl(options.to))
    throw new CopyError(
      `--to must be a postgres:// URL (received ${JSON.stringify(printableDatabaseUrl(options.to))}).`,
    );
  const path = sqlitePath(options.from);
  if (path === ':memory:' || !existsSync(path))
    throw new CopyError(`There is no SQLite database at ${path}: name it with --from.`);

  refuseForeignFile(path);
  // The schema the target gets: bring the source to it too, so their columns match.
  await (await openMigratedDatabase(options.from)).database.close();
  const source = openSqliteConnection(path, { mustExist: true });
  try {
    lockSource(source, path);
    const plan = planFor(source);
    const target = (await openMigratedDatabase(options.to)).database;
    try {
      const into = [...new Set(plan.map((p) => p.into))];
      await refuseNonEmpty(target.kysely, into);
      const expected = new Map<string, number>();
      for (const p of plan) expected.set(p.into, (expected.get(p.into) ?? 0) + p.rows);
      return await target.kysely.transaction().execute(async (trx) => {
        const copied: TableCopied[] = [];
        for (const p of plan) {
          const columns = await targetColumns(trx, p.into);
          for (const column of p.columns) {
            if (!columns.has(column))
              throw new CopyError(
                `The column ${p.table}.${column} has no place in ${p.into} on PostgreSQL: the two databases are not at the same migration. Update Debrief and run \`debrief migrate\` on both.`,
              );
          }
          copied.push(await copyTable(source, trx, p, progress));
        }
        await verifyCounts(trx, expected);
        for (const table of into) await advanceSequences(trx, table);
        return copied;
      });
    } finally {
      await target.close();
    }
  } finally {
    if (source.inTransaction) source.exec('rollback');
    source.close();
  }
}

/** A SQLite file that Debrief never migrated is not migrated (changed) by a copy either. */
function refuseForeignFile(path: string): void {
  const sqlite = openSqliteConnection(path, { mustExist: true });
  try {
    const migrated = sqlite
      .prepare(`select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'`)
      .get();
    if (!migrated)
      throw new CopyError(`${path} is not a Debrief database (it has no migrations table).`);
  } finally {
    sqlite.close();
  }
}

/**
 * Ids were copied as they were, so a serial or identity column's sequence (none today; a table
 * added later may have one) is moved past the largest copied value, or the next insert on
 * PostgreSQL would collide with a copied row.
 */
export async function advanceSequences(db: Kysely<DB>, table: string): Promise<void> {
  const { rows } = await sql<{ column_name: string; sequence: string }>`
    select column_name, pg_get_serial_sequence(quote_ident(table_name), column_name) as sequence
    from information_schema.columns
    where table_schema = current_schema() and table_name = ${table}
      and pg_get_serial_sequence(quote_ident(table_name), column_name) is not null
  `.execute(db);
  for (const { column_name, sequence } of rows) {
    await sql`
      select setval(${sequence}, coalesce((select max(${sql.ref(column_name)}) from ${sql.table(table)}), 0) + 1, false)
    `.execute(db);
  }
}

/** Takes the write lock at once, or says that something else is writing to the file. */
function lockSource(source: SQLite.Database, path: string): void {
  source.pragma('busy_timeout = 0');
  try {
    source.exec('begin immediate');
  } catch (error) {
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
    throw new CopyError(
      `Another process is writing to ${path} (a running \`debrief serve\`?). Stop it first: reports it stored during the copy would be lost.`,
    );
  }
}

interface TableStep {
  table: string;
  into: string;
  /** The target's columns, and what of the source they are read from, in the same order. */
  columns: string[];
  select: (string | { sql: string })[];
  rows: number;
}

/** The source's tables, checked against the plan: none unknown, foreign keys in order. */
function planFor(source: SQLite.Database): TableStep[] {
  const present = new Set(
    source
      .prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`)
      .pluck()
      .all() as string[],
  );
  const known = new Set(TABLE_PLAN.map((p) => p.table));
  const unknown = [...present].filter((name) => !known.has(name));
  if (unknown.length > 0)
    throw new CopyError(
      `The database has tables this copy does not know: ${unknown.join(', ')}. Nothing was copied. Add them to packages/server/src/db/copy-tables.ts (in foreign-key order) so that no table is left behind.`,
    );
  const copied = TABLE_PLAN.filter(
    (p): p is Exclude<TablePlan, { action: 'skip' }> => p.action !== 'skip' && present.has(p.table),
  );
  const done = new Set<string>();
  return copied.map((p) => {
    const references = source.pragma(`foreign_key_list(${quote(p.table)})`) as { table: string }[];
    for (const { table } of references) {
      if (table !== p.table && !done.has(table))
        throw new CopyError(
          `copy-tables.ts lists ${p.table} before ${table}, which it references: fix the order.`,
        );
    }
    done.add(p.table);
    const mapped = p.action === 'copy-into' ? p.columns : undefined;
    const columns = mapped
      ? Object.keys(mapped)
      : (source.pragma(`table_info(${quote(p.table)})`) as { name: string }[]).map((c) => c.name);
    const select = mapped ? Object.values(mapped) : columns;
    const rows = source
      .prepare(`select count(*) from ${quote(p.table)}`)
      .pluck()
      .get() as number;
    const into = p.action === 'copy-into' ? p.into : p.table;
    return { table: p.table, into, columns, select, rows };
  });
}

async function refuseNonEmpty(db: Kysely<DB>, tables: string[]): Promise<void> {
  for (const table of tables) {
    const { rows } = await sql<{
      one: number;
    }>`select 1 as one from ${sql.table(table)} limit 1`.execute(db);
    if (rows.length > 0)
      throw new CopyError(
        `The target database is not empty (${table} has rows): debrief copy only fills an empty database, so nothing is overwritten or mixed. Create a new database (createdb …) and point --to at it.`,
      );
  }
}

async function targetColumns(db: Kysely<DB>, table: string): Promise<Set<string>> {
  const { rows } = await sql<{ column_name: string }>`
    select column_name from information_schema.columns
    where table_schema = current_schema() and table_name = ${table}
  `.execute(db);
  return new Set(rows.map((r) => r.column_name));
}

async function copyTable(
  source: SQLite.Database,
  db: Kysely<DB>,
  step: TableStep,
  progress: (line: string) => void,
): Promise<TableCopied> {
  const { table, into, columns } = step;
  const label = table === into ? table : `${table} → ${into}`;
  progress(`copy: ${label}: ${step.rows} rows`);
  const batchRows = Math.max(
    1,
    Math.min(BATCH_ROWS, Math.floor(BATCH_PARAMETERS / columns.length)),
  );
  const statement = source
    .prepare(
      `select ${step.select.map((c) => (typeof c === 'string' ? quote(c) : c.sql)).join(', ')} from ${quote(table)}`,
    )
    .raw(true);
  const insert = (rows: unknown[][]) =>
    sql`insert into ${sql.table(into)} (${sql.join(columns.map((c) => sql.ref(c)))}) values ${sql.join(
      rows.map((row) => sql`(${sql.join(row)})`),
    )}`.execute(db);
  let batch: unknown[][] = [];
  let copied = 0;
  let lastProgress = Date.now();
  // The iterator reads one row at a time; only one batch is held at once.
  for (const row of statement.iterate() as IterableIterator<unknown[]>) {
    batch.push(row);
    if (batch.length < batchRows) continue;
    await insert(batch);
    copied += batch.length;
    batch = [];
    if (Date.now() - lastProgress >= PROGRESS_EVERY_MS) {
      lastProgress = Date.now();
      progress(`copy: ${label}: ${copied}/${step.rows}`);
    }
  }
  if (batch.length > 0) {
    await insert(batch);
    copied += batch.length;
  }
  return { table, into, rows: copied };
}

async function verifyCounts(db: Kysely<DB>, expected: Map<string, number>): Promise<void> {
  const mismatches: string[] = [];
  for (const [table, rows] of expected) {
    const { rows: result } = await sql<{
      n: string | number;
    }>`select count(*) as n from ${sql.table(table)}`.execute(db);
    const actual = Number(result[0]?.n ?? 0);
    if (actual !== rows) mismatches.push(`${table}: ${rows} in SQLite, ${actual} in PostgreSQL`);
  }
  if (mismatches.length > 0)
    throw new CopyError(
      `The copy does not match the source, so it was rolled back and the target left empty: ${mismatches.join('; ')}.`,
    );
}

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
