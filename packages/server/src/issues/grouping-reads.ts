import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import {
  findIssueState,
  type IssueState,
  listCandidateIssues,
  listPinnedExemplars,
  type PinnedExemplarRow,
  type PoolKey,
} from './grouping.repository.js';

/**
 * What a batch of grouping reads of the issues (group-reports.ts): the database as the
 * transaction sees it, or (PostgreSQL's write path, chained-arrivals.ts) that with the issues
 * its batches still in flight wrote laid over it.
 */
export interface GroupingReads {
  /** Each key's `limit` most recently seen issues, in that order. */
  candidates(keys: readonly PoolKey[], limit: number): Promise<IssueState[]>;
  /** Each key's `limit` newest remembered moves. */
  pinned(keys: readonly PoolKey[], limit: number): Promise<PinnedExemplarRow[]>;
  issue(id: string): Promise<IssueState | undefined>;
}

export function databaseReads(trx: Kysely<DB>): GroupingReads {
  return {
    candidates: (keys, limit) => listCandidateIssues(trx, keys, limit),
    pinned: (keys, limit) => listPinnedExemplars(trx, keys, limit),
    issue: (id) => findIssueState(trx, id),
  };
}
