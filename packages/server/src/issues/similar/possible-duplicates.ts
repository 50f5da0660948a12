import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { likeness, SUGGESTED_KINDS, signatureOf } from './likeness.js';
import { listCandidatesOfPairs, listIssueKinds, listRejectedPairs } from './similar.repository.js';

/**
 * Per (tool, kind) of a list page, the most recently seen: the flag is a hint, and its cost must
 * stay small beside the list's own (~1-2 ms for a page of 50 issues of one tool).
 */
const PAGE_CANDIDATES = 12;

/** What the flag takes of a page's issue; its kind, tool and signature are read for it. */
export interface FlaggedRow {
  id: string;
  report_count: number | string;
}

/**
 * The issues of a list page that are likely duplicates of a larger issue of the same tool and
 * kind (alike at least as much as a report must be to join: JOIN_THRESHOLD): issue id → that
 * issue's id. Only the smaller of two is flagged (ties: the newer), so a pair shows once.
 */
export async function findPossibleDuplicates(
  db: Kysely<DB>,
  projectId: string,
  rows: readonly FlaggedRow[],
): Promise<Map<string, string>> {
  const flags = new Map<string, string>();
  if (rows.length === 0) return flags;
  const counts = new Map(rows.map((row) => [row.id, Number(row.report_count)]));
  const page = (
    await listIssueKinds(
      db,
      rows.map((row) => row.id),
    )
  ).filter((row) => SUGGESTED_KINDS.has(row.kind));
  const pairs = new Map<string, { toolName: string | null; kind: string }>();
  for (const row of page)
    pairs.set(`${row.kind}\u0000${row.tool_name ?? ''}`, {
      toolName: row.tool_name,
      kind: row.kind,
    });
  const [candidates, rejected] = await Promise.all([
    listCandidatesOfPairs(db, projectId, [...pairs.values()], PAGE_CANDIDATES),
    listRejectedPairs(
      db,
      projectId,
      page.map((row) => row.id),
    ),
  ]);
  const rejectedPairs = new Set(rejected.map((p) => `${p.issue_a}\u0000${p.issue_b}`));
  const isRejected = (a: string, b: string) =>
    rejectedPairs.has(a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);
  // Each signature parsed once: a page compares each of its issues with up to PAGE_CANDIDATES.
  const parsed = new Map<string, ReturnType<typeof signatureOf>>();
  const signature = (row: { id: string; signature: string }) => {
    let found = parsed.get(row.id);
    if (found === undefined) {
      found = signatureOf(row.signature);
      parsed.set(row.id, found);
    }
    return found;
  };
  for (const row of page) {
    const members = counts.get(row.id) ?? 1;
    let best: { id: string; score: number } | null = null;
    for (const other of candidates) {
      if (other.id === row.id || other.kind !== row.kind || other.tool_name !== row.tool_name)
        continue;
      const otherMembers = Number(other.report_count);
      // Only the smaller of the two is flagged, pointing to the larger.
      if (otherMembers < members || (otherMembers === members && other.id < row.id)) continue;
      if (isRejected(row.id, other.id)) continue;
      const alike = likeness(
        { signature: signature(row), members },
        { signature: signature(other), members: otherMembers },
        true,
      );
      if (alike?.joins && (!best || alike.score > best.score))
        best = { id: other.id, score: alike.score };
    }
    if (best) flags.set(row.id, best.id);
  }
  return flags;
}
