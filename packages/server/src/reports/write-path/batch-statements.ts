import { QUEUE_COLUMNS, queueRowOf } from '../../db/grouping-queue-row.js';
import { namedOnPostgres } from '../../db/named-statements.js';
import type { CounterTable, CounterWrite } from './plan-batch.js';
import type { NewReport } from './report-writer.js';

/**
 * Every SQL statement of the write path, once, for both back ends: the SQLite writer thread runs
 * them on its better-sqlite3 connection, the Kysely back end as raw compiled queries. Plain SQL,
 * the same for both dialects but for the placeholders and how rows travel (below). Plain text
 * rather than Kysely's builder: the thread has no Kysely, and building query trees costs ~75 µs
 * a report. A statement holds all of a table's rows on PostgreSQL, as one JSON
 * parameter (jsonRowsInsert), so that its text never changes and is prepared by name; on SQLite
 * one row, so that its text is always the same and the thread's prepared statement is reused.
 */

export type StatementDialect = 'sqlite' | 'postgres';

export interface Statement {
  sql: string;
  parameters: unknown[];
  /** Whether it returns rows (better-sqlite3 runs those with `all`, the others with `run`). */
  returnsRows: boolean;
}

/** The texts sqliteRows built, by width, head and tail. */
const TEXTS = new Map<string, string>();
/** Far more than the write path's statements; past it, built afresh. */
const MAX_TEXTS = 256;

/**
 * SQLite's `insert`-like statements over many rows: one a row, `head` + `values (?, …)` +
 * `tail`, so that every statement of a batch is the same string, built once per process, and
 * the writer thread's prepared statement is reused. (PostgreSQL's: jsonRowsInsert.)
 */
function sqliteRows(
  head: string,
  rows: readonly unknown[][],
  tail: string,
  returnsRows = false,
): Statement[] {
  const width = rows[0]?.length ?? 1;
  const id = `${width} ${head} ${tail}`;
  let sql = TEXTS.get(id);
  if (sql === undefined) {
    sql = `${head} values (${Array.from({ length: width }, () => '?').join(', ')}) ${tail}`;
    if (TEXTS.size >= MAX_TEXTS) TEXTS.clear();
    TEXTS.set(id, sql);
  }
  const text = sql;
  return rows.map((row) => ({ sql: text, parameters: row, returnsRows }));
}

/** A row of readCounters: the counter's table, its key columns as a JSON array, its count. */
export interface CounterRow {
  counter: string;
  key: string;
  count: number | string;
}

/**
 * Reads counter rows and holds them to the commit: an upsert that creates a missing row at 0
 * and otherwise sets nothing new, returning the count (rows: CounterRow). On PostgreSQL it takes
 * each row's lock, in the order given (counterRowsToRead sorts them), where a plain
 * `select … for update` could not lock a row that does not exist yet; the tables go as one
 * statement, each a WITH part read in turn by `union all` (one round trip, the same lock
 * order). On SQLite the writer already holds the database's write lock.
 */
export function readCounters(
  dialect: StatementDialect,
  groups: readonly { table: CounterTable; keys: readonly (readonly (string | number)[])[] }[],
): Statement[] {
  const statements = groups.flatMap(({ table, keys }) => {
    const columns = table.columns.join(', ');
    const key =
      dialect === 'postgres' ? `json_build_array(${columns})::text` : `json_array(${columns})`;
    const tail = `on conflict (${columns}) do update set count = ${table.table}.count
        returning cast('${table.table}' as text) as counter, ${key} as key, count`;
    const rows = keys.map((k) => [...k, 0]);
    return rowsInsert(dialect, table.table, [...table.columns, 'count'], rows, tail, true);
  });
  if (dialect !== 'postgres') return statements;
  return merged(statements, (parts) => {
    const reads = parts.map((_, i) => `select counter, key, count from r${i}`).join(' union all ');
    return `with ${parts.map((part, i) => `r${i} as (${part})`).join(', ')} ${reads}`;
  });
}

/** Adds each row's `added` to its counter, creating it if missing; rows of one table. */
export function addToCounters(
  dialect: StatementDialect,
  rows: readonly CounterWrite[],
): Statement[] {
  const first = rows[0];
  if (!first) return [];
  const values = rows.map((row) => [...row.key, row.added]);
  const tail = `on conflict (${first.columns.join(', ')}) do update set count = ${first.table}.count + excluded.count`;
  return rowsInsert(dialect, first.table, [...first.columns, 'count'], values, tail);
}

/**
 * `insert into table (columns)` of many rows, followed by `tail`: on PostgreSQL one statement
 * (jsonRowsInsert), on SQLite one a row (sqliteRows).
 */
function rowsInsert(
  dialect: StatementDialect,
  table: string,
  columns: readonly string[],
  rows: readonly unknown[][],
  tail: string,
  returnsRows = false,
): Statement[] {
  return dialect === 'postgres'
    ? [jsonRowsInsert(table, columns, rows, tail, returnsRows)]
    : sqliteRows(`insert into ${table} (${columns.join(', ')})`, rows, tail, returnsRows);
}

/**
 * PostgreSQL's insert of many rows with a text that never changes: the rows as one JSON
 * parameter, an array of objects named by column, read as `table`'s own row type
 * (json_populate_recordset), so that PostgreSQL casts each value to its column's type. A VALUES
 * list has a text per row count instead, parsed and planned on every batch: ~12 µs of
 * PostgreSQL's planning a report over ~50 texts under the bench's ingest (pg_stat_statements),
 * too many texts to prepare by name. A report's texts are valid Unicode without NUL (the report
 * schema's validText), which JSON carries unchanged.
 */
function jsonRowsInsert(
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  tail: string,
  returnsRows = false,
): Statement {
  const list = columns.join(', ');
  const objects = rows.map((row) => {
    const object: Record<string, unknown> = {};
    for (let i = 0; i < columns.length; i++) object[columns[i] as string] = row[i];
    return object;
  });
  return {
    sql: `insert into ${table} (${list})
      select ${list} from json_populate_recordset(null::${table}, $1::json) ${tail}`,
    parameters: [JSON.stringify(objects)],
    returnsRows,
  };
}

const REPORT_COLUMNS = [
  'id',
  'project_id',
  'outcome',
  'tool_name',
  'source',
  'details',
  'metadata',
  'created_at',
  'redactions',
] as const;

/** `reports`, or the SQLite writer's inbox (migration 0005). */
export type ReportTable = 'reports' | 'report_inbox';

/**
 * The reports' insert; into `reports`, with one row of `grouping_queue` naming them all
 * (db/grouping-queue-row.ts): the grouper's (issues/pipeline/grouping-queue.ts) until it places
 * them. The SQLite inbox needs none: its reports
 * are grouped, or queued, when moved (sqlite/sqlite-report-batch.ts).
 */
export function insertReports(
  dialect: StatementDialect,
  table: ReportTable,
  reports: readonly NewReport[],
): Statement[] {
  const rows = reports.map((r) => [
    r.id,
    r.projectId,
    r.outcome,
    r.toolName,
    r.source,
    r.details,
    r.metadata,
    r.createdAt.toISOString(),
    r.redactions,
  ]);
  const inserted = rowsInsert(dialect, table, REPORT_COLUMNS, rows, '');
  if (table === 'report_inbox') return inserted;
  const queued = queueRowOf(reports);
  if (!queued) return inserted;
  return inserted.concat(rowsInsert(dialect, 'grouping_queue', QUEUE_COLUMNS, [queued], ''));
}

/** Parameters of a merged statement at most: PostgreSQL's limit is 65,535. */
const MERGED_PARAMETERS = 60_000;

/**
 * `text` with every placeholder `$n` moved up by `offset`: a scan with indexOf, as a regular
 * expression with a replacer took ~5 µs a submit in profiles of the bench's ingest.
 */
function renumbered(text: string, offset: number): string {
  if (offset === 0) return text;
  let out = '';
  let from = 0;
  for (let at = text.indexOf('$'); at !== -1; at = text.indexOf('$', from)) {
    let end = at + 1;
    while (end < text.length) {
      const code = text.charCodeAt(end);
      if (code < 48 || code > 57) break;
      end++;
    }
    out += text.slice(from, at + 1) + String(Number(text.slice(at + 1, end)) + offset);
    from = end;
  }
  return out + text.slice(from);
}

/**
 * PostgreSQL statements joined into as few as the parameter limit allows, each statement's
 * placeholders renumbered after the ones before it; `join` writes the parts as one statement.
 * Its texts (a lone statement's too) depend only on the tables written (jsonRowsInsert): a few,
 * prepared by name (db/named-statements.ts).
 */
function merged(statements: Statement[], join: (parts: string[]) => string): Statement[] {
  if (statements.length < 2) {
    for (const statement of statements) namedOnPostgres(statement.sql);
    return statements;
  }
  const result: Statement[] = [];
  let parts: string[] = [];
  let parameters: unknown[] = [];
  const close = () => {
    if (parts.length === 0) return;
    const sql = namedOnPostgres(join(parts));
    result.push({ sql, parameters, returnsRows: statements[0]!.returnsRows });
    parts = [];
    parameters = [];
  };
  for (const statement of statements) {
    if (parameters.length + statement.parameters.length > MERGED_PARAMETERS) close();
    parts.push(renumbered(statement.sql, parameters.length));
    parameters = parameters.concat(statement.parameters);
  }
  close();
  return result;
}

/**
 * Statements that return nothing, sent together: on PostgreSQL as one statement, each a
 * data-modifying `WITH` part (`with w0 as (insert …), w1 as (insert … on conflict …) select 1`),
 * so a batch's insert and counter upserts cost one round trip instead of one each (~10 a batch).
 * Every part runs once, on the same snapshot; each targets other rows than the rest (the
 * reports, or one counter table's distinct keys), which is what PostgreSQL asks of parts that
 * write. PostgreSQL runs such parts in an order fixed by the text, which lists the tables in
 * the same order in every batch (and each table's rows sorted): the row locks are taken in one
 * order by every transaction. On SQLite (one row a statement, prepared once) they stay as they
 * are.
 */
export function mergeWrites(dialect: StatementDialect, statements: Statement[]): Statement[] {
  if (dialect !== 'postgres') return statements;
  return merged(
    statements,
    (parts) => `with ${parts.map((part, i) => `w${i} as (${part})`).join(', ')} select 1`,
  );
}
