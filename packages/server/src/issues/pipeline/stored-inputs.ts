import type { NewReport, SubmissionOutcome } from '../../reports/write-path/index.js';
import type { ReportToGroup } from './group-reports.js';

/**
 * What grouping reads of a report, handed over by the write path once the report's batch has
 * committed (reports/write-path/group-commit-writer.ts `onStored`), so that the grouper need not
 * read it back from `reports`: [id, project, outcome, tool, details, stored at (ms)].
 *
 * Why: reading a batch back costs PostgreSQL ~5 µs a report (a key lookup in `reports` and in
 * `report_issues` each, the wide row fetched, the sort) and the grouping thread ~5 more
 * (node-postgres building rows, the timestamps, the garbage): 20,000 grouped 2,000 a batch,
 * medians of 6 rounds, the thread 3.3–3.7 µs a report handed over against 8.6–10.8 read back,
 * PostgreSQL's processes 9–10.5 against 15.5–17.5.
 */
export type StoredInput = readonly [
  id: string,
  projectId: string,
  outcome: string,
  toolName: string | null,
  details: string,
  createdAtMs: number,
];

/**
 * A committed batch's reports as handed over: the JSON text of their StoredInputs. One string a
 * batch, so that the event loop keeps no object of a report until the grouper's next round.
 * Kept as objects (a tuple each, with its strings) for the half second, they would outlive V8's
 * young generation: at the bench's saturating ingest the server's threads spend 8–27 µs a report
 * more that way,
 * the event loop and V8's collector threads (per-thread CPU, two runs each).
 */
export type StoredBatch = string;

/**
 * The text of a committed batch's stored reports: its submissions' reports with their outcomes
 * (those `stored` are in `reports`); null if it stored none. Tuples straight from the
 * submissions: a copy of each report with its project first (an object spread) costs the event
 * loop ~1.9 µs a report more (a micro-benchmark of the bench's body, 15 a batch).
 */
export function storedBatchOf(
  submissions: readonly { report: Omit<NewReport, 'projectId'> }[],
  outcomes: readonly SubmissionOutcome[],
): StoredBatch | null {
  const inputs: StoredInput[] = [];
  for (const [i, outcome] of outcomes.entries()) {
    if (outcome.status !== 'stored') continue;
    const { report } = submissions[i]!;
    const { projectId } = outcome;
    inputs.push([
      report.id,
      projectId,
      report.outcome,
      report.toolName,
      report.details,
      report.createdAt.getTime(),
    ]);
  }
  return inputs.length > 0 ? JSON.stringify(inputs) : null;
}

/**
 * Inputs kept at most, their details' characters, and how much older than the newest one they
 * may be: the reports another instance groups, or that this one grouped before their input
 * came, are never taken here. One that goes is read back if it still waits.
 */
const MAX_INPUTS = 20_000;
const MAX_DETAILS_CHARS = 8_000_000;
const MAX_AGE_MS = 60_000;

/**
 * The inputs a grouper was handed and has not grouped yet, by report id, oldest first; the
 * oldest go past the bounds. One per batch runner (batch-runner.ts), read by the queue's read
 * (grouping-queue.ts listWaitingReports), which takes each report it reaches off, used or not.
 *
 * Exact: a report's input never changes once stored (reports are written once, never updated
 * or deleted), and the values are the ones its row was written from: the timestamp as the
 * write path wrote it, to the millisecond, which is how the grouper reads any timestamp
 * (db/pg-pool.ts). Whether a queued report may still be placed without asking `report_issues`
 * is the caller's to say (pool-cache.ts PoolCache.unchangedAt).
 */
export class KnownInputs {
  readonly #inputs = new Map<string, StoredInput>();
  #chars = 0;

  add(batches: readonly StoredBatch[]): void {
    let newest = -Infinity;
    for (const input of batches.flatMap((batch) => JSON.parse(batch) as StoredInput[])) {
      newest = Math.max(newest, input[5]);
      if (this.#inputs.has(input[0])) continue;
      this.#inputs.set(input[0], input);
      this.#chars += input[4].length;
    }
    // Oldest first: in the order they were stored, near enough.
    for (const [id, input] of this.#inputs) {
      if (
        this.#inputs.size <= MAX_INPUTS &&
        this.#chars <= MAX_DETAILS_CHARS &&
        input[5] >= newest - MAX_AGE_MS
      )
        break;
      this.#inputs.delete(id);
      this.#chars -= input[4].length;
    }
  }

  /** The report's input, as the engine reads it, taken off (undefined: not handed over). */
  take(id: string): ReportToGroup | undefined {
    const input = this.#inputs.get(id);
    if (!input) return undefined;
    this.#inputs.delete(id);
    this.#chars -= input[4].length;
    const [, projectId, outcome, toolName, details, createdAtMs] = input;
    return {
      id,
      project_id: projectId,
      outcome,
      tool_name: toolName,
      details,
      created_at: this.#isoOf(createdAtMs),
    };
  }

  #second = Number.NaN;
  #secondText = '';

  /**
   * `new Date(ms).toISOString()`, the second's text kept from the call before: a batch's
   * reports share their seconds, and a Date and its text each were ~0.3 µs a report.
   */
  #isoOf(ms: number): string {
    const second = Math.floor(ms / 1000);
    if (second !== this.#second) {
      const text = new Date(ms).toISOString();
      // Past year 9999 (or before year 0) the text is longer: not kept.
      if (text.length !== 24) return text;
      this.#second = second;
      this.#secondText = text.slice(0, 20);
      return text;
    }
    const milli = ms - second * 1000;
    return `${this.#secondText}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
  }

  get size(): number {
    return this.#inputs.size;
  }
}
