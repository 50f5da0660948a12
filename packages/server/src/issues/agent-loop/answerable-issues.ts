import type { IssueStatus } from '@debrief/protocol';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { EventBus } from '../../realtime/event-bus.js';
import { CANDIDATE_LIMIT, parseSignature, type Signature } from '../grouping/index.js';
import { listAnswerableIssues } from './answerable-issues.repository.js';

/** An issue an agent may be told of: it carries an agent note, or is resolved or ignored. */
export interface AnswerableIssue {
  id: string;
  status: IssueStatus;
  agentNote: string | null;
  toolName: string | null;
  kind: string;
  signature: Signature;
  memberCount: number;
}

/**
 * How long a project's list is used before it is read again, in the background. A change made
 * through this instance's triage reaches it at once (invalidate), and so does an issue event
 * on the bus from any instance (a regression, a status change, a merge); an agent note changed
 * on another instance, within this.
 */
export const ANSWERABLE_FRESH_MS = 5_000;
/** Projects whose lists are kept at once; the least recently asked go first. */
const MAX_PROJECTS = 5_000;

interface ProjectList {
  issues: readonly AnswerableIssue[];
  loadedAt: number;
  /** A read under way: the first one (waited for), or a background refresh. */
  loading: Promise<readonly AnswerableIssue[]> | null;
  /** Stops listening to the project's issue events. */
  unsubscribe: () => void;
}

/**
 * Per project, in memory, the issues the submit answer can name (at most the grouping
 * engine's CANDIDATE_LIMIT, most recently seen first), with their signatures parsed once. A
 * project with none keeps an empty list, so its reports are answered without a query, a
 * promise or a fingerprint. Never rejects: a list that cannot be read is empty until the next
 * try.
 */
export class AnswerableIssues {
  readonly #projects = new Map<string, ProjectList>();

  constructor(
    private readonly db: Kysely<DB>,
    /** Issue events of a kept project drop its list (the bus carries them across instances). */
    private readonly bus: Pick<EventBus, 'subscribe'> | null = null,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The project's list: at once when known (a stale one is refreshed behind), else once read. */
  get(projectId: string): readonly AnswerableIssue[] | Promise<readonly AnswerableIssue[]> {
    const known = this.#projects.get(projectId);
    if (!known) return this.#load(projectId, null);
    // Never read yet: the first read is under way.
    if (known.loadedAt === 0 && known.loading) return known.loading;
    // Most recently asked last, so the first in the map is the one to drop.
    this.#projects.delete(projectId);
    this.#projects.set(projectId, known);
    if (known.loading === null && this.clock() - known.loadedAt > ANSWERABLE_FRESH_MS) {
      void this.#load(projectId, known);
    }
    return known.issues;
  }

  /** The project's issues changed here (triage, a regression): its next report reads them anew. */
  invalidate(projectId: string): void {
    this.#drop(projectId);
  }

  #drop(projectId: string): void {
    const list = this.#projects.get(projectId);
    if (!list) return;
    this.#projects.delete(projectId);
    list.unsubscribe();
  }

  #load(projectId: string, known: ProjectList | null): Promise<readonly AnswerableIssue[]> {
    const list: ProjectList = known ?? {
      issues: [],
      loadedAt: 0,
      loading: null,
      unsubscribe: this.#listen(projectId),
    };
    if (list.loading) return list.loading;
    const loading = listAnswerableIssues(this.db, projectId, CANDIDATE_LIMIT)
      .then((rows) => {
        const issues: AnswerableIssue[] = [];
        for (const row of rows) {
          let signature: Signature;
          try {
            signature = parseSignature(row.signature);
          } catch {
            // A signature of another engine version: it cannot be matched until regrouped.
            continue;
          }
          issues.push({
            id: row.id,
            status: row.status as IssueStatus,
            agentNote: row.agent_note,
            toolName: row.tool_name,
            kind: row.kind,
            signature,
            memberCount: Number(row.report_count),
          });
        }
        return issues;
      })
      .catch(() => list.issues)
      .then((issues) => {
        list.loading = null;
        // Invalidated while it was read: this read may predate the change, and is dropped.
        if (this.#projects.get(projectId) === list) {
          list.issues = issues;
          list.loadedAt = this.clock();
        }
        return issues;
      });
    list.loading = loading;
    if (known === null) this.#keep(projectId, list);
    return loading;
  }

  #keep(projectId: string, list: ProjectList): void {
    this.#projects.set(projectId, list);
    for (const oldest of this.#projects.keys()) {
      if (this.#projects.size <= MAX_PROJECTS) break;
      this.#drop(oldest);
    }
  }

  /** A regressed, re-statused or merged issue changes what agents may be told: read anew. */
  #listen(projectId: string): () => void {
    if (!this.bus) return () => {};
    return this.bus.subscribe(projectId, (event) => {
      if (event.type === 'issue' && event.issue.change !== 'created') this.#drop(projectId);
    });
  }
}
