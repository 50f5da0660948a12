import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { findPlacements } from './answerable-issues.repository.js';

/** Between two reads of the waiting reports' placements. */
const POLL_MS = 10;
/** Reports read at once; more wait for the next read. */
const MAX_PER_READ = 500;

/**
 * Waits for reports to be placed in their issues, for the submit answer. One read every
 * POLL_MS for every report waiting at the time, however many: a flood of reports that all wait
 * costs the read pool at most a hundred small reads a second, not one per report.
 */
export class PlacementWatch {
  readonly #waiting = new Map<string, (issueId: string | null) => void>();
  #timer: NodeJS.Timeout | null = null;
  #reading = false;

  constructor(
    private readonly db: Kysely<DB>,
    /** Asks the grouper to start its next round now (a no-op where the writer groups). */
    private readonly wakeGrouper: () => void,
  ) {}

  /** The report's issue once it is placed; null if that is not before `deadline` (epoch ms). */
  placement(reportId: string, deadline: number): Promise<string | null> {
    return new Promise((resolve) => {
      const settle = (issueId: string | null) => {
        clearTimeout(timeout);
        if (this.#waiting.get(reportId) === settle) this.#waiting.delete(reportId);
        resolve(issueId);
      };
      const timeout = setTimeout(() => settle(null), Math.max(0, deadline - Date.now()));
      this.#waiting.set(reportId, settle);
      this.#schedule(0);
    });
  }

  #schedule(ms: number): void {
    if (this.#timer !== null || this.#reading) return;
    this.#timer = setTimeout(() => void this.#read(), ms);
  }

  async #read(): Promise<void> {
    this.#timer = null;
    this.#reading = true;
    try {
      this.wakeGrouper();
      const ids = [...this.#waiting.keys()].slice(0, MAX_PER_READ);
      // A failed read is tried again at the next tick, until each report's deadline.
      const placed = await findPlacements(this.db, ids).catch(() => new Map<string, string>());
      for (const [reportId, issueId] of placed) this.#waiting.get(reportId)?.(issueId);
    } finally {
      this.#reading = false;
      if (this.#waiting.size > 0) this.#schedule(POLL_MS);
    }
  }
}
