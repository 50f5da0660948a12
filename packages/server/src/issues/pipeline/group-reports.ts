import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { iso } from '../../db/wire-timestamp.js';
import { newId } from '../../ids.js';
import type { IssueChange, ReportToGroup } from '../../reports/write-path/index.js';
import {
  type Assignment,
  assign,
  fingerprint,
  mergeRepeats,
  type Signature,
  serializeSignature,
  titleFor,
} from '../grouping/index.js';
import { dominantOutcome, emptyCounts } from '../issue-counts.js';
import { loadRules } from '../rules/load-rules.js';
import { NO_RULES, type ProjectRules, ruleReason } from '../rules/rule-matcher.js';
import { keyedByPool, loadPools } from './batch-pools.js';
import {
  findIssueState,
  type IssueUpdate,
  listCandidateIssues,
  type NewIssue,
  rejectedPairsOf,
} from './grouping.repository.js';
import type { Pool, PoolCache } from './pool-cache.js';
import {
  addReport,
  DeferredWidening,
  fromState,
  type Placement,
  stateOf,
  type WorkingIssue,
} from './working-issue.js';

/**
 * The engine's calls a batch makes: by default the engine's own (grouping/index.ts); a test
 * passes one that fails.
 */
export interface GroupingEngine {
  fingerprint: typeof fingerprint;
  assign: typeof assign;
  mergeRepeats: typeof mergeRepeats;
  titleFor: typeof titleFor;
}

export const DEFAULT_ENGINE: GroupingEngine = {
  fingerprint,
  assign,
  mergeRepeats,
  titleFor,
};

/**
 * The kind of the issue that holds, per project and tool, the reports the engine failed on.
 * No report's kind (kindOf) is ever this one, so that issue is never a candidate.
 */
export const UNSORTED_KIND = 'unsorted';

/** Shown on a report that opened its issue. */
export const NEW_ISSUE_REASON = 'first report of a new issue';

/** What the engine is given of a report, with where it sits in report order (the write path's). */
export type { ReportToGroup };

/** An issue a batch created or reopened, announced once committed. */
export type Change = IssueChange;

/** What grouping a batch writes, all at once, when its transaction does (group-batch.ts). */
export interface Grouped {
  /** Each report's issue, with the engine's reason, in the order of the reports. */
  members: Placement[];
  /** Issues to announce once committed: project, issue and what happened to it. */
  changes: Change[];
  /** When the last report was stored (ISO). */
  lastStoredAt: string;
  /** Issues opened by the batch, as first written (no reports yet: `updates` counts them). */
  created: NewIssue[];
  /** Every issue the batch touched (the new ones too), as it leaves it. */
  updates: IssueUpdate[];
  /** Near misses the batch added, by issue (grouping/assign.ts, the adaptive bar). */
  nearMisses: Map<string, number>;
}

/**
 * Gives each of `reports` (in report order, at least one) an issue, for a transaction that
 * holds the grouping progress row's lock at `version`: the engine
 * picks among a bounded set of candidates, read in `trx`, and the batch's writes come
 * back as data (Grouped) for the caller to write with its placements, the issues' counters,
 * times and status and the progress row past the last report (group-batch.ts
 * writeGrouped). With a `cache`, the candidates its previous batches read are used again
 * while still current (pool-cache.ts).
 */
export async function groupReports(
  trx: Kysely<DB>,
  reports: readonly ReportToGroup[],
  version: number,
  now: Date,
  engine: GroupingEngine,
  cache: PoolCache | undefined,
): Promise<Grouped> {
  const keyed = keyedByPool(reports);
  const kept = cache?.take(version) ?? new Map<string, Pool>();
  const pools = await loadPools(trx, keyed, kept);
  const rules = await loadRules(
    trx,
    keyed.map(({ report }) => report.project_id),
    cache?.rules() ?? new Map<string, ProjectRules>(),
  );
  const rejected = await rejectedPairsOf(
    trx,
    new Set(keyed.map(({ report }) => report.project_id)),
  );
  const working = new Map<string, WorkingIssue>();
  const created: NewIssue[] = [];
  const changes: Change[] = [];
  const members: Grouped['members'] = [];
  const nearMisses = new Map<string, number>();
  const opened = { trx, working, created, changes, engine, now };
  const widening = new DeferredWidening(engine.mergeRepeats);
  /** The last report the engine read, and its signature. */
  let previous: { report: ReportToGroup; signature: Signature } | null = null;

  /** An issue of the report's project, as the batch holds it (read once, then kept). */
  const issueOf = async (id: string, pool: Pool, projectId: string) => {
    let found = working.get(id);
    if (!found) {
      const state = pool.states.get(id) ?? (await findIssueState(trx, id));
      // Never across projects, whatever the engine answers.
      if (state && state.project_id === projectId) {
        found = fromState(state);
        working.set(found.id, found);
      }
    }
    return found;
  };

  for (const { report, key, name } of keyed) {
    const pool = pools.get(name) as Pool;
    const projectRules = rules.get(report.project_id) ?? NO_RULES;
    let signature: Signature;
    let choice: Pick<Assignment, 'issueId' | 'reason'>;
    /** The engine's answer; null when the report repeats one whose issue is known, or a rule placed it. */
    let assignment: Assignment | null = null;
    // The developer's rules come before the engine; a rule whose issue is gone is passed over.
    let routed = projectRules.route(report);
    if (routed && !(await issueOf(routed.issueId, pool, report.project_id))) routed = null;
    try {
      // The same input as the report before it: the same signature, without asking again.
      signature =
        previous !== null && sameInput(previous.report, report)
          ? previous.signature
          : engine.fingerprint(report);
      previous = { report, signature };
      const repeated = routed ? null : pool.repeats.recall(signature);
      if (!routed && !repeated) {
        // A comparison reads the candidates' signatures: each as widening one by one leaves it.
        widening.settle();
        assignment = engine.assign(signature, pool.candidates, pool.pinned, { rejected });
      }
      choice = routed ?? repeated ?? (assignment as Assignment);
    } catch (error) {
      // One report the engine cannot handle must not stall grouping for every report behind
      // it: it joins its tool's "unsorted" issue, which a developer can merge or move from.
      const unsorted = await unsortedIssue(opened, report);
      const why = `not grouped: the grouping engine failed (${errorText(error)})`;
      members.push(addReport(unsorted, report, why));
      continue;
    }
    let issue = choice.issueId ? await issueOf(choice.issueId, pool, report.project_id) : undefined;
    // A never-join rule keeps the report out of an issue of a tool it is kept apart from.
    const apart = issue && projectRules.apart(report.tool_name, issue.toolName);
    if (apart) issue = undefined;
    let reason = choice.reason;
    // The chosen issue cannot be used (another project's, gone, or kept apart): a new one is opened.
    const overruled = !issue && choice.issueId !== null;
    const joinsExisting = issue !== undefined;
    const missed = assignment?.nearMissOf;
    const near = missed ? pool.candidates.find((c) => c.issueId === missed) : undefined;
    if (!issue && near) {
      near.nearMisses += 1;
      nearMisses.set(near.issueId, (nearMisses.get(near.issueId) ?? 0) + 1);
    }
    if (!issue) {
      issue = openIssue(opened, report, key.kind, signature);
      pool.candidates.unshift({ issueId: issue.id, signature, memberCount: 0, nearMisses: 0 });
      reason = apart ? `${NEW_ISSUE_REASON} (${ruleReason(apart.name)})` : NEW_ISSUE_REASON;
    }
    const joined = issue;
    const candidate = pool.candidates.find((c) => c.issueId === joined.id);
    if (joinsExisting) {
      // A repeat's issue is one of its pool's candidates (grouping/repeats.ts): its widening waits.
      if (assignment === null && candidate) widening.add(issue, signature, candidate);
      else widening.now(issue, signature);
      if (issue.status === 'resolved') {
        // A new report on a resolved issue reopens it; an ignored one stays quiet.
        issue.status = 'open';
        issue.regressedAt = iso(report.created_at);
        changes.push({
          projectId: issue.projectId,
          issueId: issue.id,
          change: 'regressed',
          reportId: report.id,
        });
      }
    }
    members.push(addReport(issue, report, reason));
    if (candidate) {
      candidate.memberCount += 1;
      // A repeat's widening is deferred (the candidate's signature follows when settled), and
      // placed() reads the issue's signature only for a report the engine compared.
      if (!widening.defers(issue)) candidate.signature = issue.signature;
      pool.repeats.placed(signature, issue.id, issue.signature, overruled ? null : assignment);
    } else {
      // A pin sent it to an issue of another pool (another tool or kind). That pool's candidate
      // follows the issue, as a fresh read would give it: left as it was, the pool's next
      // reports (in this batch, or the next ones while the pool is kept) compared with the
      // issue's old signature, and grouped otherwise than a restarted grouper would. No pool's
      // repeats hold any more.
      for (const other of new Set([...pools.values(), ...kept.values()])) {
        other.repeats.forget();
        const held = other.candidates.find((c) => c.issueId === issue.id);
        if (!held) continue;
        held.memberCount += 1;
        held.signature = issue.signature;
      }
    }
  }

  widening.settle();
  const last = reports[reports.length - 1] as ReportToGroup;
  // Serialized once: for the update, and for the rows the cache keeps (stateOf).
  const issues = [...working.values()].map((issue) => ({
    issue,
    signature: serializeSignature(issue.signature),
  }));
  const updates = issues.map(({ issue, signature }) => ({
    issueId: issue.id,
    counts: issue.counts,
    outcome: dominantOutcome(issue.counts, 'failure'),
    firstSeen: issue.firstSeen,
    lastSeen: issue.lastSeen,
    sampleDetails: issue.sampleDetails,
    signature,
    regressedAt: issue.regressedAt,
  }));
  cache?.stage(
    version + 1,
    pools,
    new Map(issues.map(({ issue, signature }) => [issue.id, stateOf(issue, signature)])),
  );
  return { members, changes, lastStoredAt: iso(last.created_at), created, updates, nearMisses };
}

/** Whether the engine reads the same of both reports (GroupingInput): its signature is a function of it. */
function sameInput(a: ReportToGroup, b: ReportToGroup): boolean {
  return a.details === b.details && a.tool_name === b.tool_name && a.outcome === b.outcome;
}

function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 200);
}

/** What opening an issue needs of the batch: where it reads, and what it keeps. */
interface Opening {
  trx: Kysely<DB>;
  working: Map<string, WorkingIssue>;
  created: NewIssue[];
  changes: Change[];
  engine: GroupingEngine;
  now: Date;
}

/** The tool's issue of reports the engine failed on: found in the batch, the database, or new. */
async function unsortedIssue(opened: Opening, report: ReportToGroup): Promise<WorkingIssue> {
  const key = { projectId: report.project_id, toolName: report.tool_name, kind: UNSORTED_KIND };
  // Opened by this batch: not written yet, so only the batch knows of it.
  for (const issue of opened.working.values()) {
    if (
      issue.kind === key.kind &&
      issue.projectId === key.projectId &&
      issue.toolName === key.toolName
    )
      return issue;
  }
  const [found] = await listCandidateIssues(opened.trx, [key], 1);
  if (found) {
    const existing = fromState(found);
    opened.working.set(existing.id, existing);
    return existing;
  }
  return openIssue(opened, report, UNSORTED_KIND, null);
}

function titleOf(report: ReportToGroup, engine: GroupingEngine): string {
  try {
    return engine.titleFor([report]);
  } catch {
    const text = report.details.replace(/\s+/g, ' ').trim();
    return text.length > 80 ? `${text.slice(0, 79)}…` : text;
  }
}

/** A new issue for `report`, written with the batch (Grouped.created) and announced after it. */
function openIssue(
  { working, created, changes, engine, now }: Opening,
  report: ReportToGroup,
  kind: string,
  signature: Signature | null,
): WorkingIssue {
  const id = newId(now.getTime());
  const firstSeen = iso(report.created_at);
  created.push({
    id,
    projectId: report.project_id,
    title: titleOf(report, engine),
    toolName: report.tool_name,
    kind,
    outcome: report.outcome,
    signature: signature === null ? 'null' : serializeSignature(signature),
    firstSeen,
    now: now.toISOString(),
  });
  changes.push({
    projectId: report.project_id,
    issueId: id,
    change: 'created',
    reportId: report.id,
  });
  const issue: WorkingIssue = {
    id,
    projectId: report.project_id,
    toolName: report.tool_name,
    kind,
    status: 'open',
    signature: signature as Signature,
    counts: emptyCounts(),
    firstSeen,
    lastSeen: firstSeen,
    sampleDetails: '',
    regressedAt: null,
  };
  working.set(id, issue);
  return issue;
}
