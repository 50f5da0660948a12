/**
 * The seeder's own connection to the benchmark database: raw SQL on either dialect, opened
 * while no server runs. Raw SQL rather than Kysely: the seeder writes millions of rows, and
 * compiling a query object per thousand rows cost more than the inserts (a prepared statement
 * on SQLite, `unnest` of arrays on PostgreSQL); and the tables it fills may or may not exist
 * on the code being measured (report_rollups), which a typed schema cannot express.
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';

export type SeedConnection =
  | { dialect: 'sqlite'; sqlite: SQLite.Database }
  | { dialect: 'postgres'; pg: pg.Client };

export const isPostgresUrl = (url: string) => /^postgres(ql)?:\/\//.test(url);

export async function openSeedConnection(databaseUrl: string): Promise<SeedConnection> {
  if (isPostgresUrl(databaseUrl)) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    // The seed itself need not survive a crash: only what the server writes is measured with
    // PostgreSQL's default durability. UTC so date_trunc and to_char agree with the server.
    await client.query(`set synchronous_commit = off; set timezone = 'UTC'`);
    return { dialect: 'postgres', pg: client };
  }
  const sqlite = new SQLite(databaseUrl);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = OFF');
  sqlite.pragma('cache_size = -262144');
  sqlite.pragma('busy_timeout = 5000');
  return { dialect: 'sqlite', sqlite };
}

/** `?` placeholders on both dialects (none of the seeder's SQL has a `?` inside a literal). */
function numbered(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

export async function query<T>(
  conn: SeedConnection,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  if (conn.dialect === 'postgres') return (await conn.pg.query(numbered(text), params)).rows as T[];
  const statement = conn.sqlite.prepare(text);
  if (statement.reader) return statement.all(...params) as T[];
  statement.run(...params);
  return [];
}

export async function tableExists(conn: SeedConnection, table: string): Promise<boolean> {
  const rows =
    conn.dialect === 'postgres'
      ? await query<{ t: string | null }>(conn, 'select to_regclass(?)::text as t', [table])
      : await query<{ t: string }>(
          conn,
          `select name as t from sqlite_master where type = 'table' and name = ?`,
          [table],
        );
  return rows.some((row) => row.t !== null);
}

export async function columnExists(
  conn: SeedConnection,
  table: string,
  column: string,
): Promise<boolean> {
  const rows =
    conn.dialect === 'postgres'
      ? await query(
          conn,
          'select 1 from information_schema.columns where table_name = ? and column_name = ?',
          [table, column],
        )
      : await query(conn, 'select 1 from pragma_table_info(?) where name = ?', [table, column]);
  return rows.length > 0;
}

/**
 * Stamps the seeded issues with the engine's TERMS_VERSION (migration 0035), when the schema has
 * it: their signatures come from this engine, and unstamped the server's grouper would remake
 * them all from their reports during the run.
 */
export async function stampTermsVersion(
  conn: SeedConnection,
  projectIds: readonly string[],
  version: number,
): Promise<void> {
  if (projectIds.length === 0 || !(await columnExists(conn, 'issues', 'terms_version'))) return;
  await query(
    conn,
    `update issues set terms_version = ? where project_id in (${projectIds.map(() => '?').join(', ')})`,
    [version, ...projectIds],
  );
}

export async function closeSeedConnection(conn: SeedConnection): Promise<void> {
  if (conn.dialect === 'postgres') await conn.pg.end();
  else {
    // Fold the WAL back into the file, so the server starts on a compact database.
    conn.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    conn.sqlite.close();
  }
}
