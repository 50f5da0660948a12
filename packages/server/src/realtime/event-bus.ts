import type { Report } from '@debrief/protocol';

export type ReportListener = (report: Report) => void;

/** New reports, fanned out to the event streams of the project they belong to. */
export interface EventBus {
  /** Announces a committed report. Never throws: a live update is a bonus, the report is stored. */
  publish(projectId: string, report: Report): void;
  subscribe(projectId: string, listener: ReportListener): () => void;
  close(): Promise<void>;
}

/** Delivery inside one process: enough for SQLite, where one process owns the database. */
export class LocalEventBus implements EventBus {
  private readonly listeners = new Map<string, Set<ReportListener>>();

  publish(projectId: string, report: Report): void {
    this.deliver(projectId, report);
  }

  /** Hands a report to this process's subscribers (also used by the PostgreSQL bus). */
  deliver(projectId: string, report: Report): void {
    for (const listener of this.listeners.get(projectId) ?? []) {
      try {
        listener(report);
      } catch {
        // One broken stream must not keep the report from the others.
      }
    }
  }

  /** Whether this process has a stream of the project: the PostgreSQL bus skips the others. */
  hasSubscribers(projectId: string): boolean {
    return this.listeners.has(projectId);
  }

  subscribe(projectId: string, listener: ReportListener): () => void {
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
