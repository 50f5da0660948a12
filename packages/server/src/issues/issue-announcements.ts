import type { IssueEvent } from '@debrief/protocol';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import type { EventBus } from '../realtime/event-bus.js';
import { listIssueRowsByIds } from './issue.repository.js';
import { toIssueSummary } from './issue-wire.js';

/** An issue change to announce: what happened to which issue of which project. */
export interface IssueChangeAnnouncement {
  projectId: string;
  issueId: string;
  change: IssueEvent['change'];
  /** A merge: the issue it went into. */
  into?: string;
  /** Created or regressed: the report that opened or reopened it. */
  reportId?: string;
}

/**
 * The one place issue changes are announced, once the transaction that made them committed:
 * by the grouper (issues created or regressed) and by triage (status, merges, moves). Each
 * change goes out on the event bus with the issue as it stands; an issue deleted by the change
 * (a merge) is given in `gone`, as it was. Rejects if the issues cannot be read.
 */
export async function announceIssueChanges(
  deps: { db: Kysely<DB>; bus: EventBus },
  changes: readonly IssueChangeAnnouncement[],
  gone: ReadonlyMap<string, IssueEvent['issue']> = new Map(),
): Promise<void> {
  const rows = await listIssueRowsByIds(
    deps.db,
    changes.map((c) => c.issueId).filter((id) => !gone.has(id)),
  );
  const byId = new Map(rows.map((row) => [row.id, toIssueSummary(row)]));
  for (const change of changes) {
    const issue = gone.get(change.issueId) ?? byId.get(change.issueId);
    if (!issue) continue;
    deps.bus.publishIssue(change.projectId, {
      change: change.change,
      issue,
      ...(change.into ? { into: change.into } : {}),
    });
  }
}

/**
 * The socket for what else an issue change sets off. Notifications plug in here: a hook of
 * this type, called with the changes inside the transaction that made them (the grouper's batch,
 * a triage action), writes an outbox row per change, so that the change and its notification
 * commit together; after commit, announceIssueChanges tells the live dashboards, and a deliverer
 * sends the outbox. The grouping pipeline calls it (createGrouper's `onChanges`, the SQLite writer
 * thread's arrival grouper); src/wiring/ gives it the notifications' one.
 */
export type IssueChangeHook = (
  trx: Kysely<DB>,
  changes: readonly IssueChangeAnnouncement[],
) => Promise<void>;
