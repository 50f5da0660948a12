import { describe, expect, it } from 'vitest';
import {
  CANDIDATE_LIMIT,
  RepeatedReports,
  type Signature,
} from '../../src/issues/grouping/index.js';
import type { IssueState } from '../../src/issues/pipeline/grouping.repository.js';
import { type Pool, PoolCache } from '../../src/issues/pipeline/pool-cache.js';

const signature = { version: 1, kind: 'problem', tool: 't', members: 1, terms: {} } as Signature;

function state(id: string, lastSeen: string, status = 'open'): IssueState {
  return {
    id,
    project_id: 'p',
    tool_name: 't',
    kind: 'problem',
    status,
    signature: JSON.stringify(signature),
    first_seen: lastSeen,
    last_seen: lastSeen,
    count_success: 0,
    count_failure: 1,
    count_confusing: 0,
    count_gave_up: 0,
    count_request: 0,
  };
}

function pool(ids: string[]): Pool {
  return {
    candidates: ids.map((issueId) => ({ issueId, signature, memberCount: 1, nearMisses: 0 })),
    states: new Map(
      ids.map((id, i) => [id, state(id, new Date(Date.UTC(2026, 0, 1) - i * 1000).toISOString())]),
    ),
    pinned: [],
    repeats: new RepeatedReports(),
  };
}

describe('the grouper keeps its candidates from one batch to the next', () => {
  it('uses them only at the version its own last committed batch wrote', () => {
    const cache = new PoolCache();
    expect(cache.take(0).size).toBe(0);
    cache.stage(1, new Map([['a', pool(['x'])]]), new Map());
    cache.committed();
    expect(
      cache
        .take(1)
        .get('a')
        ?.candidates.map((c) => c.issueId),
    ).toEqual(['x']);
    // Someone else wrote issues (triage, another instance): read everything again.
    expect(cache.take(2).size).toBe(0);
    expect(cache.take(1).size).toBe(0);
  });

  it('keeps nothing of a batch that did not commit', () => {
    const cache = new PoolCache();
    cache.stage(1, new Map([['a', pool(['x'])]]), new Map());
    cache.forget();
    cache.committed();
    expect(cache.take(1).size).toBe(0);
  });

  it('brings every kept pool that lists a written issue up to date, last seen first, bounded', () => {
    const cache = new PoolCache();
    const ids = Array.from({ length: CANDIDATE_LIMIT }, (_, i) => `i${i}`);
    cache.stage(1, new Map([['a', pool(ids)]]), new Map());
    cache.committed();
    // The next batch writes the oldest candidate (now the most recently seen) and opens a new
    // issue at the front: the oldest other one falls off the list, as the query would drop it.
    const kept = cache.take(1).get('a') as Pool;
    kept.candidates.unshift({ issueId: 'new', signature, memberCount: 0, nearMisses: 0 });
    const repeated = { ...signature, terms: { timeout: 1 } };
    kept.repeats.placed(repeated, 'new', repeated, {
      issueId: null,
      similarity: 0,
      reason: '',
      nearMissOf: null,
    });
    expect(kept.repeats.recall(repeated)?.issueId).toBe('new');
    const last = ids[ids.length - 1] as string;
    const written = new Map([
      [last, state(last, '2026-01-02T00:00:00Z', 'open')],
      ['new', state('new', '2026-01-01T00:00:00.500Z')],
    ]);
    cache.stage(2, new Map([['a', kept]]), written);
    cache.committed();
    const after = cache.take(2).get('a') as Pool;
    expect(after.candidates.length).toBe(CANDIDATE_LIMIT);
    expect(after.candidates.slice(0, 3).map((c) => c.issueId)).toEqual([last, 'new', 'i0']);
    expect(after.states.get(last)?.last_seen).toBe('2026-01-02T00:00:00Z');
    const dropped = ids[ids.length - 2] as string;
    expect(after.candidates.some((c) => c.issueId === dropped)).toBe(false);
    expect(after.states.has(dropped)).toBe(false);
    // Its repeats were placed among candidates that are not all there any more.
    expect(after.repeats.recall(repeated)).toBeNull();
  });

  it('holds at most 10,000 candidates, dropping the pools used longest ago', () => {
    const cache = new PoolCache();
    const big = (n: number) => pool(Array.from({ length: n }, (_, i) => `c${i}`));
    let version = 0;
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) {
      cache.take(version);
      cache.stage(++version, new Map([[name, big(CANDIDATE_LIMIT * 10)]]), new Map());
      cache.committed();
    }
    const kept = [...cache.take(version).keys()];
    // 2,000 candidates a pool: the five most recent fit in 10,000.
    expect(kept).toEqual(['b', 'c', 'd', 'e', 'f']);
  });
});
