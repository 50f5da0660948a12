import type { IssueStatus } from '@debrief/protocol';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
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
 * through this instance's triage reaches it at once (invalidate); another instance's, and a
 * regression grouped elsewhere, within this.
 */
export const ANSWERABLE_FRESH_MS = 5_000;
/** Projects whose lists are kept at once; the least recently asked go first. */
const MAX_PROJECTS = 5_000;

interface ProjectList {
  issues: readonly AnswerableIssue[];
  loadedAt: number;
  /** A read under way: the first one (waited for), or a background refresh. */
  loading: Promise<readonly AnswerableIssue[]> | null;
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
    this.#projects.delete(projectId);
  }

  #load(projectId: string, known: ProjectList | null): Promise<readonly AnswerableIssue[]> {
    const list: ProjectList = known ?? { issues: [], loadedAt: 0, loading: null };
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
      this.#projects.delete(oldest);
    }
  }
}
