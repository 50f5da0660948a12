import { toDate } from '../../db/schema.js';
import { CANDIDATE_LIMIT, type RepeatedReports, type Signature } from '../grouping/index.js';
import type { ProjectRules } from '../rules/rule-matcher.js';
import type { IssueState } from './grouping.repository.js';

/** A tool's candidates and remembered moves, as group-batch.ts reads them for a batch. */
export interface Pool {
  candidates: { issueId: string; signature: Signature; memberCount: number; nearMisses: number }[];
  /** The candidates' rows, for an issue a report joins (counters, times, status). */
  states: Map<string, IssueState>;
  pinned: { issueId: string; signature: Signature }[];
  /** Where this pool's repeated reports go: told of every placement into its issues. */
  repeats: RepeatedReports;
}

/** The pools of the most candidates kept at once (a few KB each): bounds the thread's memory. */
const MAX_CACHED_CANDIDATES = 10_000;

/**
 * The pools of one grouper's batches, kept from one batch to the next, so a report's cost stays
 * bounded. Reading a batch's candidates anew takes most of its time when reports come from many
 * tools: ~350 µs a report over 30 tools at 100 reports a batch, ~130 µs with them kept.
 *
 * Kept pools are used only while they are exactly what the database holds: while
 * `grouping_progress.issues_version` (migration 0014) is the one this grouper's own last
 * committed batch wrote. Triage and other instances' groupers write issues under the same lock
 * and bump it, so any of their writes makes the next batch read every pool again. A batch that
 * fails (or whose commit fails) forgets them all: it may have changed them in memory.
 *
 * Use: `take(version)` under the lock; the batch reads missing pools from the database and
 * `stage`s what it wrote; the caller calls `committed()` after its commit or `forget()`.
 */
export class PoolCache {
  #version: number | null = null;
  readonly #pools = new Map<string, Pool>();
  /** Projects' grouping rules, kept as the pools are: rule writes bump the version too. */
  readonly #rules = new Map<string, ProjectRules>();
  #staged: { version: number; pools: Map<string, Pool> } | null = null;

  /**
   * Whether the database holds `version` as this cache's last committed batch left it: no one
   * else (triage, another instance's grouper) has written issues or placed a report since.
   */
  unchangedAt(version: number): boolean {
    return version === this.#version;
  }

  /** The pools kept, if the database holds `version` as this cache left it; else none. */
  take(version: number): ReadonlyMap<string, Pool> {
    if (!this.unchangedAt(version)) this.forget();
    return this.#pools;
  }

  /** The rules kept (after take(version) has checked the version), for the batch to add to. */
  rules(): Map<string, ProjectRules> {
    return this.#rules;
  }

  /**
   * What a batch leaves: its pools, and the issues it wrote (as rows), which bring every kept
   * pool that lists them up to date, in the candidates' order (last seen first).
   */
  stage(version: number, pools: Map<string, Pool>, written: Map<string, IssueState>): void {
    const all = new Set([...this.#pools.values(), ...pools.values()]);
    for (const pool of all) {
      let touched = false;
      for (const candidate of pool.candidates) {
        const row = written.get(candidate.issueId);
        if (!row) continue;
        pool.states.set(row.id, row);
        touched = true;
      }
      if (!touched) continue;
      const lastSeen = (id: string) => {
        const state = pool.states.get(id);
        return state ? toDate(state.last_seen).getTime() : 0;
      };
      pool.candidates.sort((a, b) => lastSeen(b.issueId) - lastSeen(a.issueId));
      const dropped = pool.candidates.splice(CANDIDATE_LIMIT);
      for (const { issueId } of dropped) pool.states.delete(issueId);
      // The candidates are no longer the ones its repeats were compared with.
      if (dropped.length > 0) pool.repeats.forget();
    }
    this.#staged = { version, pools };
  }

  /** The staged batch committed: its pools are kept, the least recently used beyond the bound go. */
  committed(): void {
    const staged = this.#staged;
    this.#staged = null;
    if (!staged) return;
    this.#version = staged.version;
    for (const [name, pool] of staged.pools) {
      this.#pools.delete(name);
      this.#pools.set(name, pool);
    }
    let kept = 0;
    for (const pool of this.#pools.values()) kept += pool.candidates.length;
    for (const [name, pool] of this.#pools) {
      if (kept <= MAX_CACHED_CANDIDATES) break;
      kept -= pool.candidates.length;
      this.#pools.delete(name);
    }
  }

  forget(): void {
    this.#version = null;
    this.#pools.clear();
    this.#rules.clear();
    this.#staged = null;
  }
}
