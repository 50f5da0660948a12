import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { ReportToGroup } from '../../reports/write-path/index.js';
import {
  CANDIDATE_LIMIT,
  kindOf,
  PINNED_LIMIT,
  parseSignature,
  RepeatedReports,
} from '../grouping/index.js';
import { countsOfRow, totalOf } from '../issue-counts.js';
import { listCandidateIssues, listPinnedExemplars, type PoolKey } from './grouping.repository.js';
import type { Pool } from './pool-cache.js';

/*
 * A batch's pools: the reports of one project, tool and kind share the candidates and remembered
 * moves they are compared with; a batch loads those it does not keep in two queries.
 */

/**
 * Each report with its pool's key and name; a report of the same project, tool and outcome as
 * the one before it shares them (most of a batch, under load: no new name to hash each).
 */
export function keyedByPool(
  reports: readonly ReportToGroup[],
): { report: ReportToGroup; key: PoolKey; name: string }[] {
  const keyed: { report: ReportToGroup; key: PoolKey; name: string }[] = [];
  let before: (typeof keyed)[number] | undefined;
  for (const report of reports) {
    if (
      before?.report.project_id === report.project_id &&
      before.report.tool_name === report.tool_name &&
      before.report.outcome === report.outcome
    ) {
      before = { report, key: before.key, name: before.name };
    } else {
      const key = {
        projectId: report.project_id,
        toolName: report.tool_name,
        kind: kindOf(report.outcome),
      };
      before = { report, key, name: poolKeyOf(key) };
    }
    keyed.push(before);
  }
  return keyed;
}

/** A pool's name: every report's, so plain text (an id and a kind hold no NUL; no tool: ''). */
function poolKeyOf(key: PoolKey): string {
  return `${key.projectId}\u0000${key.kind}\u0000${key.toolName === null ? '' : `=${key.toolName}`}`;
}

/**
 * The candidates and remembered moves of every key of the batch: the kept ones, and two queries
 * in all for the others.
 */
export async function loadPools(
  trx: Kysely<DB>,
  keys: { key: PoolKey; name: string }[],
  kept: ReadonlyMap<string, Pool>,
): Promise<Map<string, Pool>> {
  const pools = new Map<string, Pool>();
  const distinct: PoolKey[] = [];
  for (const { key, name } of keys) {
    if (pools.has(name)) continue;
    const pool = kept.get(name);
    pools.set(
      name,
      pool ?? { candidates: [], states: new Map(), pinned: [], repeats: new RepeatedReports() },
    );
    if (!pool) distinct.push(key);
  }
  if (distinct.length === 0) return pools;
  const poolOf = (row: { project_id: string; tool_name: string | null; kind: string }) =>
    pools.get(poolKeyOf({ projectId: row.project_id, toolName: row.tool_name, kind: row.kind }));
  for (const row of await listCandidateIssues(trx, distinct, CANDIDATE_LIMIT)) {
    const pool = poolOf(row);
    if (!pool) continue;
    pool.candidates.push({
      issueId: row.id,
      signature: parseSignature(row.signature),
      memberCount: totalOf(countsOfRow(row)),
      nearMisses: Number(row.near_misses),
    });
    pool.states.set(row.id, row);
  }
  for (const row of await listPinnedExemplars(trx, distinct, PINNED_LIMIT)) {
    poolOf(row)?.pinned.push({ issueId: row.issue_id, signature: parseSignature(row.signature) });
  }
  return pools;
}
