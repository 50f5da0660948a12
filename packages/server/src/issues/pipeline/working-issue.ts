import type { Outcome } from '@debrief/protocol';
import { iso } from '../../db/wire-timestamp.js';
import { parseSignature, type Signature } from '../grouping/index.js';
import { countColumns, countsOfRow, type OutcomeCounts } from '../issue-counts.js';
import type { IssueState } from './grouping.repository.js';

/**
 * An issue as a batch of grouping holds it (group-reports.ts): read from its row, counted as
 * reports join, and written back, as a row the grouper's cache keeps too.
 */

const SAMPLE_MAX = 280;

/** A report's place: its issue, with the engine's reason. */
export interface Placement {
  reportId: string;
  issueId: string;
  reason: string;
}

/** A report as the batch counts it in its issue. */
export interface CountedReport {
  id: string;
  outcome: string;
  details: string;
  created_at: string | Date;
}

/** An issue touched by the batch, as it will be written when the batch commits. */
export interface WorkingIssue {
  id: string;
  projectId: string;
  toolName: string | null;
  kind: string;
  status: string;
  signature: Signature;
  counts: OutcomeCounts;
  firstSeen: string;
  lastSeen: string;
  sampleDetails: string;
  regressedAt: string | null;
}

/**
 * The signature a kept row (stateOf) was made from, so that the next batch need not parse the
 * text it just serialized.
 */
const parsedSignatures = new WeakMap<IssueState, Signature>();

/** An issue as the batch wrote it (`signature` serialized), as the candidates query reads it. */
export function stateOf(issue: WorkingIssue, signature: string): IssueState {
  const c = countColumns(issue.counts);
  const row: IssueState = {
    id: issue.id,
    project_id: issue.projectId,
    tool_name: issue.toolName,
    kind: issue.kind,
    status: issue.status,
    signature,
    first_seen: issue.firstSeen,
    last_seen: issue.lastSeen,
    count_success: c.count_success,
    count_failure: c.count_failure,
    count_confusing: c.count_confusing,
    count_gave_up: c.count_gave_up,
    count_request: c.count_request,
  };
  if (issue.signature !== null) parsedSignatures.set(row, issue.signature);
  return row;
}

/** An issue a batch joins, from its row (or the row a batch before it kept). */
export function fromState(state: IssueState): WorkingIssue {
  return {
    id: state.id,
    projectId: state.project_id,
    toolName: state.tool_name,
    kind: state.kind,
    status: state.status,
    signature: parsedSignatures.get(state) ?? parseSignature(state.signature),
    counts: countsOfRow(state),
    firstSeen: iso(state.first_seen),
    lastSeen: iso(state.last_seen),
    sampleDetails: '',
    regressedAt: null,
  };
}

/** Counts the report in its issue; returns its placement. */
export function addReport(issue: WorkingIssue, report: CountedReport, reason: string): Placement {
  issue.counts[report.outcome as Outcome] += 1;
  const at = iso(report.created_at);
  if (at < issue.firstSeen) issue.firstSeen = at;
  // The sample is the latest report's; reports arrive in order, so a later one replaces it.
  if (at >= issue.lastSeen || issue.sampleDetails === '') {
    issue.lastSeen = at > issue.lastSeen ? at : issue.lastSeen;
    issue.sampleDetails = report.details.slice(0, SAMPLE_MAX);
  }
  return { reportId: report.id, issueId: issue.id, reason };
}

/**
 * Widening issues' signatures as reports join them (the engine's mergeRepeats), where a
 * repeat's widening waits until something reads the signature: a run of reports of one
 * signature then widens its issue once, `times` over, where each of them copied the issue's
 * terms (~1 µs a report in the SQLite writer under the bench's one body). settle() before any
 * comparison and at the end of the batch: every reader then sees what widening report by report
 * gives.
 */
export class DeferredWidening {
  private readonly waiting = new Map<
    WorkingIssue,
    { candidate: { signature: Signature }; runs: { report: Signature; times: number }[] }
  >();

  constructor(
    private readonly widen: (issue: Signature, report: Signature, times: number) => Signature,
  ) {}

  /** `report` joins `issue` now. */
  now(issue: WorkingIssue, report: Signature): void {
    widenInto(issue, this.widen, report, 1);
  }

  /** `report` joins `issue`, whose candidate in the pool follows its signature when settled. */
  add(issue: WorkingIssue, report: Signature, candidate: { signature: Signature }): void {
    let entry = this.waiting.get(issue);
    if (!entry) {
      entry = { candidate, runs: [] };
      this.waiting.set(issue, entry);
    }
    const run = entry.runs.at(-1);
    if (run?.report === report) run.times += 1;
    else entry.runs.push({ report, times: 1 });
  }

  /** Whether `issue` has widening still to do. */
  defers(issue: WorkingIssue): boolean {
    return this.waiting.has(issue);
  }

  settle(): void {
    if (this.waiting.size === 0) return;
    for (const [issue, { candidate, runs }] of this.waiting) {
      for (const { report, times } of runs) widenInto(issue, this.widen, report, times);
      candidate.signature = issue.signature;
    }
    this.waiting.clear();
  }
}

function widenInto(
  issue: WorkingIssue,
  widen: (issue: Signature, report: Signature, times: number) => Signature,
  report: Signature,
  times: number,
): void {
  try {
    issue.signature = widen(issue.signature, report, times);
  } catch {
    // The issue keeps the signature it had: the report is placed all the same.
  }
}
