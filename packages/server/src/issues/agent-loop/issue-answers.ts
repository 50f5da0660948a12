import type { SubmitReportIssue } from '@debrief/protocol';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { AnsweredReport, IssueAnswerPort } from '../../reports/issue-answer-port.js';
import { assign, type Candidate, fingerprint, kindOf } from '../grouping/index.js';
import type { AnswerableIssue, AnswerableIssues } from './answerable-issues.js';
import { PlacementWatch } from './placement-watch.js';

/** The longest a submit answer waits for its report's issue; past it, no `issue` field. */
export const ANSWER_WAIT_MS = 200;

export interface IssueAnswersDeps {
  db: Kysely<DB>;
  issues: AnswerableIssues;
  /**
   * Asks the background grouper to start its next round now (it polls every few hundred ms);
   * a no-op where reports are grouped as the writer moves them (a SQLite file: reading the
   * placement moves them).
   */
  wakeGrouper: () => void;
  waitMs?: number;
}

/**
 * The submit answer's `issue` (reports/issue-answer-port.ts), found in two steps:
 *
 * 1. A guess, synchronous and bounded: the report's fingerprint against the project's
 *    answerable issues of its tool and kind (answerable-issues.ts), with the grouping engine's
 *    own `assign`. A project with none, or a report of a tool with none, stops here: no wait.
 * 2. Only after a hit, the truth: the report's placement is read (placement-watch.ts: one read
 *    a tick for every report waiting, the grouper woken) until it
 *    is there or the wait is over. The answer names the issue the report was actually placed
 *    in, and only if that issue is answerable; so an ingest key learns of no issue but the one
 *    its own report joined. Its status and note are the ones the list held when the report
 *    arrived (a report that reopens a resolved issue is told `resolved`).
 */
export function createIssueAnswers(deps: IssueAnswersDeps): IssueAnswerPort {
  const waitMs = deps.waitMs ?? ANSWER_WAIT_MS;

  const watch = new PlacementWatch(deps.db, deps.wakeGrouper);

  async function confirm(
    report: AnsweredReport,
    issues: readonly AnswerableIssue[],
    deadline: number,
  ): Promise<SubmitReportIssue | null> {
    const placed = await watch.placement(report.id, deadline);
    const issue = placed === null ? undefined : issues.find((i) => i.id === placed);
    return issue ? answerOf(issue) : null;
  }

  function answerFrom(
    report: AnsweredReport,
    issues: readonly AnswerableIssue[],
    deadline: number,
  ): Promise<SubmitReportIssue | null> | null {
    if (issues.length === 0 || guess(report, issues) === null) return null;
    return confirm(report, issues, deadline);
  }

  return {
    answer(report) {
      const deadline = Date.now() + waitMs;
      const known = deps.issues.get(report.projectId);
      if (!(known instanceof Promise)) return answerFrom(report, known, deadline);
      // The project's list is read once: that read counts against the wait too.
      return Promise.race([
        known.then((issues) => answerFrom(report, issues, deadline)),
        sleep(waitMs).then(() => null),
      ]).catch(() => null);
    },
  };
}

/** Guesses remembered per list: agents repeat themselves, and a flood repeats one text. */
const MAX_REMEMBERED_GUESSES = 1_000;

/** A list's issues by the engine's pool (kind and tool), and the guesses made against it. */
interface Guesser {
  pools: Map<string, Candidate[]>;
  guesses: Map<string, string | null>;
}

/** One per list: a list is replaced, not changed, when its project's issues are read again. */
const guessers = new WeakMap<readonly AnswerableIssue[], Guesser>();

function guesserOf(issues: readonly AnswerableIssue[]): Guesser {
  let guesser = guessers.get(issues);
  if (!guesser) {
    const pools = new Map<string, Candidate[]>();
    for (const issue of issues) {
      const pool = poolOf(issue.kind, issue.toolName);
      const candidates = pools.get(pool) ?? [];
      candidates.push({
        issueId: issue.id,
        signature: issue.signature,
        memberCount: issue.memberCount,
      });
      pools.set(pool, candidates);
    }
    guesser = { pools, guesses: new Map() };
    guessers.set(issues, guesser);
  }
  return guesser;
}

const poolOf = (kind: string, toolName: string | null) =>
  toolName === null ? kind : `${kind}\u0000${toolName}`;

/**
 * The answerable issue the engine would place the report in among them, or null. A report of
 * a tool and kind with none costs a map lookup; a text already guessed against this list, one
 * more. A new text costs the engine's fingerprint and `assign` over at most 200 candidates.
 */
function guess(report: AnsweredReport, issues: readonly AnswerableIssue[]): string | null {
  const { pools, guesses } = guesserOf(issues);
  const pool = poolOf(kindOf(report.outcome), report.toolName);
  const candidates = pools.get(pool);
  if (!candidates) return null;
  const key = `${pool}\u0001${report.details}`;
  const known = guesses.get(key);
  if (known !== undefined) return known;
  let guessed: string | null;
  try {
    const signature = fingerprint({
      outcome: report.outcome,
      tool_name: report.toolName,
      source: report.source,
      details: report.details,
      metadata: report.metadata,
    });
    guessed = assign(signature, candidates).issueId;
  } catch {
    // The engine failed on this text: the grouper puts it in its tool's unsorted issue.
    guessed = null;
  }
  if (guesses.size >= MAX_REMEMBERED_GUESSES) guesses.clear();
  guesses.set(key, guessed);
  return guessed;
}

function answerOf(issue: AnswerableIssue): SubmitReportIssue | null {
  if (issue.agentNote === null && issue.status === 'open') return null;
  return {
    id: issue.id,
    status: issue.status,
    ...(issue.agentNote !== null ? { agent_note: issue.agentNote } : {}),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
