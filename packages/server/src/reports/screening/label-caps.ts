import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { countLabels, type LabelColumn, labelKnown } from './screening.repository.js';

/** How long a count of a project's labels is trusted before it is taken again. */
const COUNT_TTL_MS = 1000;
/** Projects whose known labels are kept in memory (most recently used); others ask the database. */
const MAX_PROJECTS = 200;

interface LabelState {
  /** Labels known to be admitted: stored, or admitted by this process. At most about the cap. */
  known: Set<string>;
  /** Distinct labels in the database at the last count, and new ones admitted since. */
  counted: number;
  countedAt: number;
  admittedSinceCount: number;
  counting: Promise<void> | null;
}

/**
 * The cap on distinct `tool_name` and `source` values per project (docs/operating.md, Limits on
 * labels): a report
 * that brings a new value to a project already holding `cap` of them is refused (400
 * `too_many_tool_names` / `too_many_sources`), while every value the project already has
 * stays accepted. Refused rather than folded into an "(other)" value: the agent is told at once
 * and can resend with a name the project knows, where folding would store reports under a name
 * nobody sent and hide which tool they were about.
 *
 * Cheap on the hot path: a label this process has seen for the project is a Set lookup. A label
 * it has not seen costs one index seek (`labelKnown`), and a new one a count of the project's
 * labels, taken at most once a second per project and shared by concurrent requests; new labels
 * admitted since the count are counted in memory. The database stays the truth, so several
 * instances on PostgreSQL hold the cap approximately: each may admit the new labels of one
 * second before it sees the others' — a project can pass the cap by that many, never grow
 * without bound.
 */
export class LabelCaps {
  private readonly projects = new Map<string, Map<LabelColumn, LabelState>>();

  constructor(
    private readonly db: Kysely<DB>,
    private readonly caps: Record<LabelColumn, number>,
  ) {}

  /** Whether a report of the project may carry this label (null = none: always). */
  async admit(projectId: string, column: LabelColumn, label: string | null): Promise<boolean> {
    if (label === null) return true;
    const state = this.state(projectId, column);
    if (state.known.has(label)) return true;
    const cap = this.caps[column];
    if (await labelKnown(this.db, projectId, column, label)) {
      this.remember(state, label, cap);
      return true;
    }
    if (Date.now() - state.countedAt > COUNT_TTL_MS) {
      state.counting ??= countLabels(this.db, projectId, column, cap)
        .then((n) => {
          state.counted = n;
          state.countedAt = Date.now();
          state.admittedSinceCount = 0;
        })
        .finally(() => {
          state.counting = null;
        });
      await state.counting;
    }
    // Synchronous from here: concurrent requests each see the ones admitted before them.
    if (state.known.has(label)) return true;
    if (state.counted + state.admittedSinceCount >= cap) return false;
    state.admittedSinceCount += 1;
    this.remember(state, label, cap);
    return true;
  }

  private remember(state: LabelState, label: string, cap: number): void {
    // A project stored before the cap existed may hold more: keep memory bounded, re-learn.
    if (state.known.size >= cap * 2) state.known.clear();
    state.known.add(label);
  }

  private state(projectId: string, column: LabelColumn): LabelState {
    let project = this.projects.get(projectId);
    if (project) {
      // Most recently used last: the first entry is the one to evict.
      this.projects.delete(projectId);
    } else {
      project = new Map();
      if (this.projects.size >= MAX_PROJECTS) {
        const oldest = this.projects.keys().next().value;
        if (oldest !== undefined) this.projects.delete(oldest);
      }
    }
    this.projects.set(projectId, project);
    let state = project.get(column);
    if (!state) {
      state = {
        known: new Set(),
        counted: 0,
        countedAt: 0,
        admittedSinceCount: 0,
        counting: null,
      };
      project.set(column, state);
    }
    return state;
  }
}
