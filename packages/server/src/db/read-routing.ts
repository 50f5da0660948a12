import { type CompiledQuery, sql } from 'kysely';
import { ROLLUP_GRAINS } from '../reports/report-rollup-key.js';

/**
 * The tables the report writer fills (reports, their issue rows, and the facet counters and
 * rollups it keeps beside them).
 * A read of one of them outside a transaction waits for the writer's barrier first, so it sees
 * every report acknowledged before it (read-your-writes without a `flush()` at each call site),
 * and on a SQLite file it runs in a reader process, off the event loop: these are the reads
 * that can take long (counts over a date range, deep pages).
 *
 * Everything else (keys, sessions, projects, settings) is a lookup by key: it stays on the main
 * connection, so a burst of slow report reads never queues an API-key check or the ingest
 * path's key lookup behind them, and the writer's own key and quota lookups never wait on the
 * barrier they are part of. A table the writer fills belongs in this list, unless, like
 * `report_outcome_counts` (migration 0018) and `issue_days` (0036, written with the issues it
 * counts, which are read here too), it is only ever read by key, a few rows at a time:
 * the writer commits its counters with the reports they count (the SQLite inbox defers only the
 * reports' own rows), so such a read needs no barrier, and on the main connection it costs
 * a few µs where a reader process's round trip costs both processes a wake-up, a write and a
 * parse. The unfiltered reports list, the dashboard's first request, asks it every time: with
 * its counts read here, from 0018's five rows instead of `report_counts`' ~780 in a reader,
 * page 1 + stats at 400,000 reports took 605–825 µs of the machine's CPU instead of
 * 1,100–1,320, p99 7–10 ms instead of 11–13 (interleaved A/B, 3 rounds, 10 connections).
 */
export const REPORT_TABLES: ReadonlySet<string> = new Set([
  'reports',
  'report_issues',
  'report_counts',
  ...ROLLUP_GRAINS.map((grain) => grain.table),
]);

/**
 * Whether a query is a SELECT that reads a report table (in any join or subquery): a builder
 * SELECT by its operation tree; a raw `sql` template by its text, a SELECT (or WITH) that names
 * one of the tables as a word. Raw reads are routed too, so that one written as a template
 * cannot skip the barrier by accident; one that must not wait for the writer says so with
 * UNROUTED_READ.
 */
export function readsReportTables(query: CompiledQuery): boolean {
  const node = query.query;
  if (node.kind === 'SelectQueryNode') {
    // A statement compiled once per shape (compiled-shapes.ts) brings the same frozen tree on
    // every call: walked once. A page of the issues list walked ~0.3 ms of trees a request.
    let reads = walkedTrees.get(node);
    if (reads === undefined) {
      reads = namesReportTable(node, 0);
      walkedTrees.set(node, reads);
    }
    return reads;
  }
  if (node.kind !== 'RawNode') return false;
  return (
    RAW_READ.test(query.sql) &&
    !query.sql.includes(UNROUTED_MARK) &&
    REPORT_TABLE_WORD.test(query.sql)
  );
}

const UNROUTED_MARK = '/* unrouted report read */';

/** Operation trees already walked: a tree is frozen, so its answer never changes. */
const walkedTrees = new WeakMap<object, boolean>();

/**
 * Put first in a raw `sql` SELECT of a report table that must run on the main connection, ahead
 * of the writer's barrier (the submit path's label screening, which would otherwise wait a
 * commit for its own writer). Every other raw report read is routed like a builder one.
 */
export const UNROUTED_READ = sql.raw(UNROUTED_MARK);

const RAW_READ = /^\s*(?:\/\*[\s\S]*?\*\/\s*)*(?:select|with)\b/i;
const REPORT_TABLE_WORD = new RegExp(`\\b(?:${[...REPORT_TABLES].join('|')})\\b`, 'i');

/**
 * Walks the operation tree (plain frozen objects) for a TableNode of a report table. Generic
 * instead of a Kysely OperationNodeVisitor: a visitor must list every node kind, and one it
 * missed would silently send a report read past the barrier.
 */
function namesReportTable(node: unknown, depth: number): boolean {
  if (typeof node !== 'object' || node === null || depth > 64) return false;
  if (Array.isArray(node)) return node.some((item) => namesReportTable(item, depth + 1));
  const record = node as Record<string, unknown>;
  if (record.kind === 'TableNode') {
    const table = record.table as { identifier?: { name?: unknown } } | undefined;
    const name = table?.identifier?.name;
    return typeof name === 'string' && REPORT_TABLES.has(name);
  }
  for (const key in record) {
    if (namesReportTable(record[key], depth + 1)) return true;
  }
  return false;
}
