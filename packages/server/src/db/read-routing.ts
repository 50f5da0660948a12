import type { RootOperationNode } from 'kysely';
import { ROLLUP_GRAINS } from '../reports/report-rollup-key.js';

/**
 * The tables the report writer fills (reports, and the facet counters and rollups it keeps
 * beside them).
 * A read of one of them outside a transaction waits for the writer's barrier first, so it sees
 * every report acknowledged before it (read-your-writes without a `flush()` at each call site),
 * and on a SQLite file it runs in a reader process, off the event loop: these are the reads
 * that can take long (counts over a date range, deep pages).
 *
 * Everything else (keys, sessions, projects, settings) is a lookup by key: it stays on the main
 * connection, so a burst of slow report reads never queues an API-key check or the ingest
 * path's key lookup behind them, and the writer's own key and quota lookups never wait on the
 * barrier they are part of. A table the writer fills belongs in this list.
 */
export const REPORT_TABLES: ReadonlySet<string> = new Set([
  'reports',
  'report_counts',
  ...ROLLUP_GRAINS.map((grain) => grain.table),
]);

/** Whether a query is a SELECT that reads a report table (in any join or subquery). */
export function readsReportTables(node: RootOperationNode): boolean {
  return node.kind === 'SelectQueryNode' && namesReportTable(node, 0);
}

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
