import type { IssueEvent, Report } from '@debrief/protocol';

/** What the bus carries: a new report, or a change of an issue. */
export type BusEvent = { type: 'report'; report: Report } | { type: 'issue'; issue: IssueEvent };

export type BusListener = (event: BusEvent) => void;

/** New reports and issue changes, fanned out to the event streams of their project. */
export interface EventBus {
  /**
   * Announces a committed report. Never throws (nor rejects): a live update is a bonus, the
   * report is stored. Resolves once the announcement has left for every instance (at once in
   * one process; on PostgreSQL when its NOTIFY has run, or after about a second), so the
   * submitter's 201 can follow it: a client that sends its next report after the 201 has it
   * announced after this one, whichever instance takes it.
   */
  publish(projectId: string, report: Report): void | Promise<void>;
  /** Announces an issue created, regressed or triaged (committed). Never throws either. */
  publishIssue(projectId: string, issue: IssueEvent): void;
  subscribe(projectId: string, listener: BusListener): () => void;
  close(): Promise<void>;
}

/** Delivery inside one process: enough for SQLite, where one process owns the database. */
export class LocalEventBus implements EventBus {
  private readonly listeners = new Map<string, Set<BusListener>>();

  publish(projectId: string, report: Report): void {
    this.deliver(projectId, { type: 'report', report });
  }

  publishIssue(projectId: string, issue: IssueEvent): void {
    this.deliver(projectId, { type: 'issue', issue });
  }

  /** Hands an event to this process's subscribers (also used by the PostgreSQL bus). */
  deliver(projectId: string, event: BusEvent): void {
    for (const listener of this.listeners.get(projectId) ?? []) {
      try {
        listener(event);
      } catch {
        // One broken stream must not keep the report from the others.
      }
    }
  }

  /** Whether this process has a stream of the project: the PostgreSQL bus skips the others. */
  hasSubscribers(projectId: string): boolean {
    return this.listeners.has(projectId);
  }

  subscribe(projectId: string, listener: BusListener): () => void {
    let set = this.listeners.get(projectId);
    if (!set) {
      set = new Set();
      this.listeners.set(projectId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(projectId);
    };
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
