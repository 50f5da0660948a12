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
 * What a batch of grouping reads of the issues (group-reports.ts), as one seam: the batch's
 * engine work then needs no database, and a caller that knows of issues the database does not
 * show yet (batches in flight) can lay them over these reads. The one kind today is the
 * database as the batch's transaction sees it.
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
