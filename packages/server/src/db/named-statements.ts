/**
 * Statements the main PostgreSQL pool prepares by name (pg-pool.ts): fixed texts the server
 * runs on every ingest batch, which PostgreSQL otherwise parses and plans on every run. The
 * ingest key lookup joins three tables, and planning it cost PostgreSQL ~11 µs a report under
 * the bench's ingest (pg_stat_statements, ~16 reports a batch: ~0.18 ms a batch), more than
 * running it (~1.6). By name it is parsed once per connection and, after five runs, planned
 * once (its generic plan).
 *
 * The batch's insert and counter upserts are one merged statement whose text depends only on
 * the tables it writes (batch-statements.ts mergeWrites): a few texts, named as they appear.
 *
 * Registered by the module that owns the text; MAX_NAMED at most, the rest run unnamed.
 */
const names = new Map<string, string>();
const MAX_NAMED = 64;

/** Marks `text` to be prepared by name on PostgreSQL's main pool; returns it. */
export function namedOnPostgres(text: string): string {
  if (!names.has(text) && names.size < MAX_NAMED) names.set(text, `debrief_${names.size + 1}`);
  return text;
}

/** The name `text` is prepared by, if it was marked. */
export function statementName(text: string): string | undefined {
  return names.get(text);
}
